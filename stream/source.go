package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Source. The flag named beside each field is the one
// cmd wiring maps onto it; New's errors name that flag.
type Config struct {
	Store        Store
	Prefix       string            // --stream.s3.prefix
	PollInterval time.Duration     // --stream.poll-interval, default 30s
	LookBack     time.Duration     // --stream.look-back, default 1h: how late an object may arrive and still be read
	Projects     map[string]string // --stream.project SUBDOMAIN=PROJECT_ID
	MaxPaths     int               // --stream.max-paths, default 5000 (per project)
	TopReferrers int               // --stream.top-referrers, default 50 (per project)
	SearchTerms  bool              // --stream.search-terms (opt-in)
	TrafficRules string            // --stream.traffic-rules FILE ("" = built-in rules)
	EventMap     string            // --stream.event-map FILE ("" = built-in table)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// WaitUntil sleeps until t or ctx ends; nil means a real timer. Tests
	// pass mintlifytest.Clock.WaitUntil.
	WaitUntil func(ctx context.Context, t time.Time) error
	Logger    log.Logger
	// OnChange is called after a poll changed counts or the checkpoint (the
	// cache file saver schedules a save). It must not call back into the
	// Source synchronously while holding its own locks.
	OnChange func()
}

// Defaults of the Config fields left zero.
const (
	DefaultPollInterval = 30 * time.Second
	DefaultLookBack     = time.Hour
	DefaultMaxPaths     = 5000
	DefaultTopReferrers = 50
)

// Status is the source's health, for the landing page and mintlify_up.
type Status struct {
	Bucket, Prefix                      string
	LastPoll, LastObjectTime, NewestEvent time.Time
	Lag                                 time.Duration
	EventsPerMinute                     float64 // over the last 10 minutes
	Objects, Lines, Events, Duplicates  int64
	Refused                             map[string]int64 // by reason
	Err                                 error            // last poll's error, nil when it succeeded
}

// Source reads the event stream and exposes its counts. It is a
// prometheus.Collector; it does not describe mintlify_up (the exporter's
// health does, from Status().Err).
type Source struct {
	cfg Config
	mu  sync.Mutex
}

// New validates cfg and returns a Source that has read nothing yet.
func New(cfg Config) (*Source, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("stream: no store: set --stream.s3.bucket")
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.PollInterval < time.Second {
		return nil, fmt.Errorf("--stream.poll-interval=%s: must be at least 1s", cfg.PollInterval)
	}
	if cfg.LookBack == 0 {
		cfg.LookBack = DefaultLookBack
	}
	if cfg.LookBack < cfg.PollInterval {
		return nil, fmt.Errorf("--stream.look-back=%s: must be at least --stream.poll-interval (%s)", cfg.LookBack, cfg.PollInterval)
	}
	if cfg.MaxPaths == 0 {
		cfg.MaxPaths = DefaultMaxPaths
	}
	if cfg.MaxPaths < 0 {
		return nil, fmt.Errorf("--stream.max-paths=%d: must be positive", cfg.MaxPaths)
	}
	if cfg.TopReferrers == 0 {
		cfg.TopReferrers = DefaultTopReferrers
	}
	if cfg.TopReferrers < 0 {
		return nil, fmt.Errorf("--stream.top-referrers=%d: must be positive", cfg.TopReferrers)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	return &Source{cfg: cfg}, nil
}

// Run polls every PollInterval until ctx is done.
func (s *Source) Run(ctx context.Context) {}

// Poll lists the new objects, reads them and counts their events once.
func (s *Source) Poll(ctx context.Context) error { return nil }

// Describe sends the descriptors of the stream's metric families.
func (s *Source) Describe(ch chan<- *prometheus.Desc) {}

// Collect sends the stream's metrics.
func (s *Source) Collect(ch chan<- prometheus.Metric) {}

// Snapshot returns the source's state (checkpoint, recent keys and event
// ids, counters, visitor sketches) as JSON, taken under one lock.
func (s *Source) Snapshot() (json.RawMessage, error) { return json.RawMessage(`{}`), nil }

// Restore replaces the state with a Snapshot's, refusing it whole if any
// part is invalid.
func (s *Source) Restore(b json.RawMessage) error { return nil }

// Status returns the source's health.
func (s *Source) Status() Status { return Status{Prefix: s.cfg.Prefix} }
