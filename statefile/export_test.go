package statefile

import "time"

// SetDelay changes the debounce delay (tests shorten it).
func (s *Saver) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Saves returns how many times the file was written.
func (s *Saver) Saves() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}
