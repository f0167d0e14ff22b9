// Package progname holds the program's name and the start of its one-line
// errors, defined once for the commands, the exporter's build info and the
// API client's User-Agent.
package progname

// Name is the program's name.
const Name = "mintlify_exporter"

// ErrorPrefix starts every one-line error the commands print, as kingpin's
// own do.
const ErrorPrefix = Name + ": error: "
