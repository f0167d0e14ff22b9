// Package errstate decides when a repeated failure is worth a log line:
// the first failure, a failure of another kind than the last, and the
// recovery, but not the same failure again at every retry. The engine's
// units and the job watcher's projects each keep one State.
package errstate

// State is the failure being reported, by its class; the zero value is
// healthy. It is not safe for concurrent use: its owner holds a lock.
type State struct {
	class string
}

// Failed records a failure of class (what stays the same between two
// failures for the same reason) and reports whether it is news to log: the
// thing was healthy or failed for another reason.
func (s *State) Failed(class string) bool {
	if class == "" {
		class = "error"
	}
	news := class != s.class
	s.class = class
	return news
}

// Recovered records a success and reports whether it ends a failure, a
// recovery to log.
func (s *State) Recovered() bool {
	was := s.class != ""
	s.class = ""
	return was
}

// Failing reports whether the last outcome was a failure.
func (s *State) Failing() bool { return s.class != "" }
