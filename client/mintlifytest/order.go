package mintlifytest

import "math/rand/v2"

// WithUnorderedPaths makes the visitors and views exports serve their rows
// in a fixed pseudo-random order instead of total descending. The API
// promises no order: a client that stops a walk early must check the order
// on every page, and read every page when it does not hold.
func WithUnorderedPaths() Option {
	return func(s *Server) { s.unorderedPaths = true }
}

// unordered returns rows in an order that depends only on their number, so
// that every page of one walk comes from the same order.
func unordered(rows []Row) []Row {
	out := append([]Row(nil), rows...)
	r := rand.New(rand.NewPCG(uint64(len(rows)), 0x5eed))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
