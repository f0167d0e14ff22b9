// Package agentcmd implements the exporter's agent subcommands:
//
//	mintlify_exporter agent message --job=ID --prompt=TEXT [--wait] [--wait.timeout=30m]
//	mintlify_exporter agent get --job=ID
//
// Both print the agent job as the API sent it, as indented JSON on
// standard output, and report progress and errors on standard error. The
// exit code says how it went: see ExitOK and the other Exit constants.
package agentcmd
