package engine

// HeldBack is the part of the requests left this hour that a due refresh
// may not spend, so that units can wait while requests are left.
type HeldBack struct {
	// Headroom is kept for first data and the day that just ended:
	// overdue and stale refreshes leave it free (schedule.Room).
	Headroom int
	// Rollover is kept in the hour before UTC midnight for the refreshes
	// every 1d window needs when the day changes.
	Rollover int
}

// HeldBack returns what the budget holds back now, for the landing page.
func (e *Engine) HeldBack() HeldBack {
	e.mu.Lock()
	defer e.mu.Unlock()
	return HeldBack{Headroom: headroom(e.cfg.Budget.PerHour()), Rollover: e.rolloverReserveLocked(e.now())}
}
