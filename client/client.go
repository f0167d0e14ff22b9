package client

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/backoff"
	"github.com/mintlify-exporter/mintlify_exporter/internal/progname"
)

// Defaults applied by New to zero Config and RetryPolicy fields, and the
// retry delays: doubled from DefaultBaseDelay up to DefaultMaxDelay.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBodyBytes = 64 << 20 // the zero Endpoint's MaxBody
	DefaultUserAgent    = progname.Name
	DefaultMaxAttempts  = 4
	DefaultBaseDelay    = 500 * time.Millisecond
	DefaultMaxDelay     = 10 * time.Second
)

// Config configures a Client. Only Key is required.
type Config struct {
	// BaseURL may have a path prefix; DefaultBaseURL when empty.
	BaseURL string
	Key     KeySource
	// HTTPClient defaults to one that follows no redirects (a 3xx is an
	// APIError) and never sends a request twice on its own (no keep-alive,
	// HTTP/1.1 only: see defaultHTTPClient). One given here must not resend
	// either, or the API reads requests that Hooks.Allow never counted.
	HTTPClient *http.Client
	// Timeout bounds each attempt, reading the body included.
	Timeout   time.Duration
	UserAgent string
	Retry     RetryPolicy
	// Hooks may be called from several goroutines at once.
	Hooks Hooks
	// Now is the clock a Retry-After HTTP date is read against.
	Now func() time.Time
}

// RetryPolicy says how transient failures are retried; zero fields take
// defaults. A 5xx's Retry-After longer than the delay is waited, up to
// DefaultMaxDelay.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt: 1 disables retries.
	MaxAttempts int
	// Sleep waits d or until ctx is done, returning ctx's error then.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter randomizes a delay within [0, DefaultMaxDelay]; default [d/2, d].
	Jitter func(d time.Duration) time.Duration
}

// Client calls the Mintlify API. It is safe for concurrent use.
type Client struct {
	base string // scheme://host[/prefix], no trailing slash
	cfg  Config // defaults applied
}

// New checks cfg, applies defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Key == nil {
		return nil, fmt.Errorf("client: Config.Key is required: %w", ErrNoKey)
	}
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	cfg.Timeout, cfg.UserAgent = cmp.Or(cfg.Timeout, DefaultTimeout), cmp.Or(cfg.UserAgent, DefaultUserAgent)
	r := &cfg.Retry
	switch {
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("client: negative Timeout %s", cfg.Timeout)
	case r.MaxAttempts < 0:
		return nil, fmt.Errorf("client: negative Retry.MaxAttempts %d", r.MaxAttempts)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	r.MaxAttempts = cmp.Or(r.MaxAttempts, DefaultMaxAttempts)
	if r.Sleep == nil {
		r.Sleep = DefaultSleep
	}
	if r.Jitter == nil {
		r.Jitter = backoff.HalfJitter
	}
	return &Client{base: base, cfg: cfg}, nil
}

func parseBaseURL(s string) (string, error) {
	s = cmp.Or(s, DefaultBaseURL)
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("client: invalid base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("client: invalid base URL %q: want http(s)://host[/prefix]", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("client: invalid base URL %q: no user info, query or fragment allowed", u.Redacted())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// defaultHTTPClient bounds connection set-up, follows no redirects and
// sends every request on a connection of its own, over HTTP/1.1: the budget
// counts an attempt when Allow lets it go, and net/http must not send it
// again behind its back. HTTP/1's transport re-sends a GET on a new
// connection when a reused one fails after the request was written (a proxy
// resetting idle connections), never on a fresh one; HTTP/2's retries a
// stream reset with REFUSED_STREAM or PROTOCOL_ERROR, which a proxy may send
// after reading it, up to 6 times. At 100 analytics requests an hour, a
// handshake a request costs nothing.
func defaultHTTPClient() *http.Client {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			Protocols:             &protocols,
			DisableKeepAlives:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// DefaultSleep waits d or until ctx is done, returning ctx's error then.
func DefaultSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d): // collected once unreferenced, fired or not
		return nil
	}
}
