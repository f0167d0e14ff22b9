package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
)

var errUndefinedEndpoint = errors.New("endpoint not defined with a budget class (client.analytics or client.free)")

type call struct {
	endpoint     Endpoint
	project, job string // the route's parameters
	path         string // set by do: escaped, starting with "/"
	query        url.Values
	body         []byte // JSON request body, nil for none
}

// idempotent reports whether the call may be repeated after it possibly
// reached the server.
func (r *call) idempotent() bool { return r.endpoint.Method() == http.MethodGet }

type outcome struct {
	body      []byte // of a 2xx answer, without the key
	err       error
	retryable bool
	// unsent: no connection was made and nothing was written, so the API
	// never saw it.
	unsent bool
}

// do performs the call, retrying transient failures per the RetryPolicy.
func (c *Client) do(ctx context.Context, r *call) (_ []byte, err error) {
	if r.path, err = r.endpoint.route(r.project, r.job); err != nil {
		return nil, err
	}
	if r.endpoint == (Endpoint{}) {
		return nil, fmt.Errorf("%s: %w", r.endpoint, errUndefinedEndpoint)
	}
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			if last != nil {
				return nil, fmt.Errorf("%w; stopped retrying: %w", last, err)
			}
			return nil, fmt.Errorf("%s: %w", r.endpoint, err)
		}
		key, err := c.cfg.Key.Key()
		if err == nil {
			err = CheckKey(key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: API key: %w", r.endpoint, err)
		}
		if c.cfg.Hooks.Allow != nil {
			if err := c.cfg.Hooks.Allow(ctx, r.endpoint); err != nil {
				if last != nil {
					return nil, fmt.Errorf("%w; retry not allowed: %w", last, err)
				}
				return nil, fmt.Errorf("%s: request not allowed: %w", r.endpoint, err)
			}
		}
		o := c.attempt(ctx, r, key)
		if o.unsent && c.cfg.Hooks.Unsent != nil {
			c.cfg.Hooks.Unsent(r.endpoint)
		}
		if o.err == nil {
			return o.body, nil
		}
		last = o.err
		if !o.retryable {
			return nil, o.err
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w; stopped retrying: %w", o.err, err)
		}
		if attempt >= c.cfg.Retry.MaxAttempts {
			if attempt == 1 {
				return nil, o.err
			}
			return nil, fmt.Errorf("%w (gave up after %d attempts)", o.err, attempt)
		}
		delay := backoff.Policy{Base: DefaultBaseDelay, Max: DefaultMaxDelay, Jitter: c.cfg.Retry.Jitter}.Delay(attempt)
		if ae, ok := errors.AsType[*APIError](o.err); ok && ae.HasRetryAfter && ae.RetryAfter > delay {
			delay = min(ae.RetryAfter, DefaultMaxDelay)
		}
		if err := c.cfg.Retry.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("%w; stopped retrying: %w", last, err)
		}
	}
}

// attempt sends the request once and reads the answer within the timeout.
func (c *Client) attempt(ctx context.Context, r *call, key string) outcome {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var wrote atomic.Bool
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Store(true) },
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
	}), r.endpoint.Method(), target, bytes.NewReader(r.body)) // no body: http.NoBody
	if err != nil {
		return outcome{err: fmt.Errorf("%s: building request: %w", r.endpoint, err)}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	res, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if wrote.Load() {
			err = &writtenError{err: err}
		}
		c.observe(Attempt{Endpoint: r.endpoint, Err: err, Duration: time.Since(start)})
		return c.transportFailure(ctx, actx, r, err)
	}
	defer res.Body.Close()

	ok := res.StatusCode >= 200 && res.StatusCode < 300
	limit := r.endpoint.MaxBody()
	if !ok {
		limit = min(limit, maxErrorBodyBytes)
	}
	var b []byte
	var readErr error
	tooLarge := ok && res.ContentLength > limit // refused unread
	if !tooLarge {
		// The key's length more, so that a key across an error answer's
		// cut is read whole and redacted.
		b, readErr = readBody(res, limit+1+int64(len(key)))
		tooLarge = readErr == nil && int64(len(b)) > limit
	}
	c.observe(Attempt{Endpoint: r.endpoint, StatusCode: res.StatusCode, Err: readErr, Duration: time.Since(start)})
	// The key is taken out before anything reads the body.
	if key != "" && bytes.Contains(b, []byte(key)) {
		b = bytes.ReplaceAll(b, []byte(key), []byte("[redacted]"))
	}
	switch {
	case readErr != nil && ctx.Err() != nil:
		return outcome{err: fmt.Errorf("%s: reading response: %w", r.endpoint, ctx.Err())}
	case readErr != nil:
		reason := "reading body: " + readErr.Error()
		if actx.Err() != nil {
			reason = fmt.Sprintf("reading body: no complete answer within %s", c.cfg.Timeout)
		}
		// The server answered, so a POST reached it: only GETs are repeated.
		return outcome{err: &DecodeError{Endpoint: r.endpoint, Reason: reason}, retryable: r.idempotent()}
	case ok && tooLarge:
		return outcome{err: fmt.Errorf("%s: HTTP %d: body exceeds %d bytes: %w", r.endpoint, res.StatusCode, limit, ErrBodyTooLarge)}
	case ok:
		return outcome{body: redactEscaped(b, key)}
	}
	// 500, 502, 503 and 504 are retried for GETs.
	retry := slices.Contains([]int{500, 502, 503, 504}, res.StatusCode) && r.idempotent()
	return outcome{err: c.apiError(r.endpoint, res, b[:min(int64(len(b)), limit)], key), retryable: retry}
}

const maxErrorBodyBytes = 64 << 10

// transportFailure classifies an attempt that got no answer.
func (c *Client) transportFailure(ctx, actx context.Context, r *call, err error) outcome {
	if ctx.Err() != nil {
		// The caller gave up: never retried.
		return outcome{err: fmt.Errorf("%s: %w", r.endpoint, err)}
	}
	if _, ok := certProblem(err); ok {
		// Until the configuration changes: not retried. The handshake
		// failed, so the request was not written.
		return outcome{err: &CertificateError{Endpoint: r.endpoint, Err: err}, unsent: IsConnectFailure(err)}
	}
	if actx.Err() != nil {
		// The per-attempt timeout: a POST may have reached the server.
		return outcome{
			err:       fmt.Errorf("%s: no answer within %s: %w", r.endpoint, c.cfg.Timeout, err),
			retryable: r.idempotent(),
		}
	}
	return outcome{
		err:       fmt.Errorf("%s: %w", r.endpoint, err),
		retryable: r.idempotent() || IsConnectFailure(err),
		unsent:    IsConnectFailure(err),
	}
}

// IsConnectFailure reports whether err comes from a request that never
// reached the API: no connection, or a TLS handshake refused over the
// certificate, and nothing written (a transport that wrote the request and
// then failed to dial again, its own retry, did send it).
func IsConnectFailure(err error) bool {
	if _, written := errors.AsType[*writtenError](err); written {
		return false
	}
	_, cert := certProblem(err)
	op, isOp := errors.AsType[*net.OpError](err)
	return cert || isOp && op.Op == "dial"
}

// writtenError is a transport failure after some of the request was
// written (httptrace saw its headers go out): the API may have read it, so
// the budget keeps it, whatever the last error of the transport was.
type writtenError struct{ err error }

func (e *writtenError) Error() string { return e.err.Error() }
func (e *writtenError) Unwrap() error { return e.err }

func (c *Client) observe(a Attempt) {
	if c.cfg.Hooks.Observe != nil {
		c.cfg.Hooks.Observe(a)
	}
}

func (c *Client) apiError(ep Endpoint, res *http.Response, body []byte, key string) *APIError {
	ae := &APIError{Endpoint: ep, StatusCode: res.StatusCode}
	ae.RetryAfter, ae.HasRetryAfter = ParseRetryAfter(res.Header.Get("Retry-After"), c.cfg.Now()) // none: not ok
	var shape struct {
		Error   *string `json:"error"`
		Message *string `json:"message"`
		Details []struct {
			Message string `json:"message"`
		} `json:"details"`
	}
	switch {
	case json.Unmarshal(body, &shape) == nil && (shape.Error != nil || shape.Message != nil):
		ae.Message = excerpt(*cmp.Or(shape.Error, shape.Message), key)
		for _, d := range shape.Details {
			if d.Message != "" {
				ae.Details = append(ae.Details, excerpt(d.Message, key))
			}
		}
		if len(ae.Details) > maxDetails {
			ae.Details = append(ae.Details[:maxDetails:maxDetails], fmt.Sprintf("and %d more", len(ae.Details)-maxDetails))
		}
	case len(bytes.TrimSpace(body)) > 0:
		ae.Message = excerpt(string(body), key)
	}
	ae.Message = cmp.Or(ae.Message, http.StatusText(res.StatusCode))
	return ae
}

// maxExcerptRunes bounds a message taken from a response body, and
// maxDetails an APIError's details, to keep its message one line.
const (
	maxExcerptRunes = 200
	maxDetails      = 5
)

// excerpt makes s fit for a one-line error message, without the key.
func excerpt(s, key string) string {
	s = redact(s, key)
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxExcerptRunes {
		s = string([]rune(s)[:maxExcerptRunes]) + "…"
	}
	return s
}

// redactEscaped redacts key from every string literal of the JSON body b
// that holds it only through \u escapes (mint\u005f...), which no byte
// search sees. A body without \u is returned unscanned; undecodable
// literals are left to the decoder, which rejects them.
func redactEscaped(b []byte, key string) []byte {
	if key == "" || !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		// Outside a string literal, a quote starts one; find its end.
		j, hasU := i+1, false
		for ; j < len(b) && b[j] != '"'; j++ {
			if b[j] == '\\' {
				j++
				hasU = hasU || j < len(b) && b[j] == 'u'
			}
		}
		if j >= len(b) {
			break // unterminated: the decoder rejects the body
		}
		var s string
		if hasU && json.Unmarshal(b[i:j+1], &s) == nil && strings.Contains(s, key) {
			enc, _ := json.Marshal(redact(s, key)) // a string always encodes
			out = append(append(out, b[last:i]...), enc...)
			last = j + 1
		}
		i = j // the closing quote
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// redact takes key out of s. An empty key leaves s as it is: replacing ""
// would put "[redacted]" between every two characters.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// ErrInvalidID is wrapped by the error of a call given an id that cannot be
// a path segment ("", "." or ".."): nothing is sent.
var ErrInvalidID = errors.New("invalid id")

// segment escapes a path segment; "", "." and ".." would address another
// route.
func segment(what, v string) (string, error) {
	switch v {
	case "":
		return "", fmt.Errorf("%w: empty %s", ErrInvalidID, what)
	case ".", "..":
		return "", fmt.Errorf("%w: %s %q would address another route of the API", ErrInvalidID, what, v)
	}
	return url.PathEscape(v), nil
}

// readBody reads at most limit bytes of the (decompressed: a gzip bomb
// stops too) body into a buffer sized from Content-Length and never grown
// past limit, so one answer holds at most its endpoint's cap.
func readBody(res *http.Response, limit int64) ([]byte, error) {
	size := int64(64 << 10)
	if n := res.ContentLength; n >= 0 {
		size = n + 1 // one more byte to see the end (or a body longer than announced)
	}
	buf := make([]byte, 0, min(size, limit))
	r := io.LimitReader(res.Body, limit)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= limit {
				return buf, nil
			}
			buf = append(make([]byte, 0, min(max(2*int64(cap(buf)), 4096), limit)), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
