// Package progname holds the program's name and the prefix of its errors.
package progname

// Name is the program's name.
const Name = "mintlify_exporter"

// ErrorPrefix starts every one-line error, as kingpin's own.
const ErrorPrefix = Name + ": error: "
