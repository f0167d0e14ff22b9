//go:build !unix

package client

// whoCannotRead explains a permission error on the key file.
func whoCannotRead(path string) string {
	return "the exporter's user cannot read it; give it read access"
}
