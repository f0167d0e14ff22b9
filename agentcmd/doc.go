// Package agentcmd implements the agent subcommands (create, message, get),
// which print the agent job as JSON on standard output and report progress
// and errors on standard error; the Exit constants are their exit codes.
package agentcmd
