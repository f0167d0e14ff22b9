package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/go-kit/log/level"

	"github.com/mintlify-exporter/mintlify_exporter/budget"
	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
)

// settle ends u's refresh: f updates its state, then waiters are woken.
func (e *Engine) settle(u *unit, f func()) {
	e.mu.Lock()
	f()
	u.inFlight = false
	e.changedLocked()
	e.mu.Unlock()
}

// fail records a failed refresh: the previous data stays, mintlify_up goes
// to 0, the unit backs off, and a 429 pauses every analytics request.
func (e *Engine) fail(u *unit, err error, end time.Time, took time.Duration) {
	if e.ctx.Err() != nil {
		e.settle(u, func() {}) // shutting down: not a failure of the API
		return
	}
	e.cfg.Status.Failed(u.Project, u.Source, u.Window.Name, e.statusPart(u), took)
	if ra, has, ok := client.IsRateLimited(err); ok {
		e.mu.Lock()
		e.rateLimits++
		if !has || ra <= 0 { // a Retry-After already past would retry in a hot loop
			ra = backoff.AnalyticsRateLimit.Delay(e.rateLimits)
		}
		e.mu.Unlock()
		e.cfg.Budget.Pause(end.Add(min(ra, client.MaxRateLimitPause)))
	}
	e.settle(u, func() {
		u.failures++
		u.attempted = true
		// After a 429 the unit goes again when the pause ends.
		u.retryAt = maxTime(end.Add(backoff.Policy{Base: failureBackoffBase, Max: u.interval}.Delay(u.failures)), e.cfg.Budget.PausedUntil())
		var cert *client.CertificateError
		if errors.As(err, &cert) {
			// One line for the engine, saying what to do: the API's
			// certificate is at fault (or the trust store), not the unit.
			if e.connErrs.Failed(errorClass(err)) {
				level.Error(e.logger).Log("msg", "the API's TLS certificate was refused: check --mintlify.api-url, or add the CA of an intercepting proxy to the system's trust store (SSL_CERT_FILE) (no analytics request was spent; units retry with a back-off)",
					"endpoint", cert.Endpoint.String(), "err", cert.Reason(), "retry_at", u.retryAt.UTC().Format(time.RFC3339))
			}
		} else if client.IsConnectFailure(err) {
			// One line per kind for the engine: the address is at fault.
			if e.connErrs.Failed(errorClass(err)) {
				level.Error(e.logger).Log("msg", "cannot connect to the API: check --mintlify.api-url and the network (no analytics request was spent; units retry with a back-off)",
					"err", connectError(err), "retry_at", u.retryAt.UTC().Format(time.RFC3339))
			}
		} else if u.errs.Failed(errorClass(err)) {
			msg := u.Source + " refresh failed; serving the previous data"
			if u.snap == nil {
				msg = u.Source + " refresh failed; no data for this unit yet"
			}
			if _, _, limited := client.IsRateLimited(err); limited {
				msg += fmt.Sprintf("; the API's rate limit (%d analytics requests per organization per hour) was hit, so every analytics request pauses until retry_at", client.AnalyticsRequestsPerHour)
			}
			level.Error(e.logger).Log("msg", msg, "collector", u.Source, "project", u.Project, "window", u.Window.String(),
				"err", Advice(err), "retry_at", u.retryAt.UTC().Format(time.RFC3339))
		}
		u.lastErr = err.Error()
	})
}

// succeed installs a refresh's data and counts its skipped rows.
func (e *Engine) succeed(u *unit, snap *snapshot) {
	for _, reason := range slices.Sorted(maps.Keys(snap.res.Skipped)) {
		n := snap.res.Skipped[reason]
		if n <= 0 {
			continue
		}
		e.skipped.WithLabelValues(u.Source, reason).Add(float64(n))
		e.mu.Lock()
		first := !e.skipLogged[u.Source+"\x00"+reason]
		e.skipLogged[u.Source+"\x00"+reason] = true
		e.mu.Unlock()
		if first {
			level.Warn(e.logger).Log("msg", "the API sent malformed rows; they were skipped and the rest of the answer kept (logged once per source and reason; see mintlify_rows_skipped_total)",
				"collector", u.Source, "project", u.Project, "window", u.Window.String(), "reason", reason, "rows", n)
		}
	}
	e.settle(u, func() { e.installLocked(u, snap) })
	e.notifyLayer()
	e.cfg.OnChange()
}

// installLocked makes snap u's data; the Layer is told once the lock is released.
func (e *Engine) installLocked(u *unit, snap *snapshot) {
	e.cfg.Status.Succeeded(u.Project, u.Source, u.Window.Name, e.statusPart(u), snap.completed, snap.duration)
	if e.cfg.Layer != nil {
		n := note{u: u.Unit, data: snap.data()}
		if u.snap != nil {
			n.prev = u.snap.data()
		}
		e.notes = append(e.notes, n)
	}
	if u.errs.Recovered() {
		level.Info(e.logger).Log("msg", u.Source+" refresh succeeded again", "collector", u.Source, "project", u.Project, "window", u.Window.String())
	}
	if e.connErrs.Recovered() {
		level.Info(e.logger).Log("msg", "the API answers again", "url_flag", "--mintlify.api-url")
	}
	u.snap, u.failures, u.lastErr, u.retryAt = snap, 0, "", time.Time{}
	u.attempted = true
	e.rateLimits = 0
	level.Debug(e.logger).Log("msg", u.Source+" refreshed", "collector", u.Source, "project", u.Project, "window", u.Window.String(),
		"range", snap.rng.String(), "requests", snap.res.Cost, "summary", snap.res.Summary, "duration", snap.duration)
	e.publishLocked()
	e.logAllDataLocked()
}

// logFirstRoundLocked says once that units without data wait: the hour's
// requests and those they still need exceed the budget (decideLocked set every
// waitAt). While a request goes on bare guesses it waits for better ones.
func (e *Engine) logFirstRoundLocked(now time.Time, going bool) {
	need, waiting, guess := e.cfg.Budget.Used(), 0, false
	var by time.Time
	for _, u := range e.units {
		if u.snap != nil || e.servedLocked(u) {
			continue
		}
		c, g := e.estimateLocked(u, now)
		if u.job != nil && u.job.walk != nil {
			c = max(1, c-u.job.walk.Sent())
		}
		need += c
		guess = guess || g
		if !u.waitAt.IsZero() {
			waiting++
			by = maxTime(by, u.waitAt)
		}
	}
	if guess && going {
		return
	}
	e.firstRoundLogged = true
	level.Info(e.logger).Log("msg", "the first round of refreshes needs more requests than the budget allows in an hour: units without data wait for the budget, in the order of the landing page's \"next request\" column (not a failure; see mintlify_units_waiting)",
		"requests_last_hour", e.cfg.Budget.Used(), "first_round_requests", need, "estimated", guess, "requests_per_hour", e.cfg.Budget.PerHour(),
		"units_waiting", waiting, "all_data_by", by.UTC().Format(time.RFC3339))
}

// logAllDataLocked says once when every unit has data.
func (e *Engine) logAllDataLocked() {
	if e.allDataLogged || slices.ContainsFunc(e.units, func(u *unit) bool { return u.snap == nil }) {
		return
	}
	e.allDataLogged = true
	level.Info(e.logger).Log("msg", "every unit has data", "units", len(e.units))
}

// errorClass names the kind of a refresh error, without what varies between
// failures for the same reason (such as the offset of a failed page).
func errorClass(err error) string {
	var ae *client.APIError
	var de *client.DecodeError
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("api %d %s", ae.StatusCode, ae.Message)
	case errors.As(err, &de):
		return "decode " + de.Reason
	case errors.Is(err, budget.ErrExhausted):
		return "budget"
	case errors.Is(err, budget.ErrRateLimitPause):
		return "paused"
	case errors.Is(err, client.ErrTooManyPages):
		return "too many pages"
	case errors.Is(err, client.ErrBodyTooLarge):
		return "body too large"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case client.IsCertificateError(err):
		return "certificate"
	case client.IsConnectFailure(err) && errors.As(err, new(*net.DNSError)):
		return "connect dns"
	case client.IsConnectFailure(err):
		return "connect"
	}
	return "transport"
}

// connectError is the dial's own error, without the request's URL and query.
func connectError(err error) string {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error()
	}
	return err.Error()
}

// Advice returns the error text with what to do for the common cases.
func Advice(err error) string {
	switch {
	case client.IsUnauthorized(err):
		return err.Error() + " (the admin API key was refused: check that it is an admin key of this organization and has not expired or been revoked)"
	case client.IsNotFound(err):
		return err.Error() + " (check --mintlify.project-id against the dashboard's API keys page, and that --mintlify.api-url is the API's base address, without a path)"
	}
	return err.Error()
}
