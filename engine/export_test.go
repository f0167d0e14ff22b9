package engine

// Working reports whether the worker is running a refresh, an audit or a
// day read; tests on a manual clock use it to tell a refresh paced by the
// budget (waiting for their clock) from a sleeping worker.
func (e *Engine) Working() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.working
}
