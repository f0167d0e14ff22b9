// Package errstate tells when a failure is news to log: once per kind, and the recovery.
package errstate

import "cmp"

// State is the class of the current failure; the zero value is healthy.
type State struct {
	class string
}

// Failed records a failure of class and reports whether it is news to log.
func (s *State) Failed(class string) bool {
	class = cmp.Or(class, "error")
	news := class != s.class
	s.class = class
	return news
}

// Recovered records a success and reports whether it ends a failure.
func (s *State) Recovered() bool {
	was := s.class != ""
	s.class = ""
	return was
}
