package stream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
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
	Bucket, Prefix                        string
	LastPoll, LastObjectTime, NewestEvent time.Time
	Lag                                   time.Duration
	EventsPerMinute                       float64 // over the last 10 minutes
	Objects, Lines, Events, Duplicates    int64
	Refused                               map[string]int64 // by reason
	Err                                   error            // last poll's error, nil when it succeeded
}

// Source reads the event stream and exposes its counts. It is a
// prometheus.Collector; it does not describe mintlify_up (the exporter's
// health does, from Status().Err).
type Source struct {
	cfg    Config
	wait   func(ctx context.Context, t time.Time) error
	parser *parser
	descs  [numFams]*prometheus.Desc

	pollMu sync.Mutex // one poll (or Restore) at a time

	mu       sync.Mutex // guards what follows
	st       *state
	started  bool            // a poll or a Restore happened: not a first start
	interval time.Duration   // the next poll's wait: PollInterval, doubled while throttled
	lastPoll time.Time       //
	err      error           // the last poll's
	logged   map[string]bool // kinds of trouble logged once
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
	for sub, id := range cfg.Projects {
		if sub == "" || id == "" || sanitize(sub, maxLabelLen) != sub || sanitize(id, maxLabelLen) != id {
			return nil, fmt.Errorf("--stream.project=%s=%s: want SUBDOMAIN=PROJECT_ID, both non-empty printable text", sub, id)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	rules, err := loadTrafficRules(cfg.TrafficRules)
	if err != nil {
		return nil, err
	}
	emap, err := loadEventMap(cfg.EventMap)
	if err != nil {
		return nil, err
	}
	s := &Source{
		cfg:      cfg,
		wait:     cfg.WaitUntil,
		parser:   &parser{rules: rules, emap: emap, terms: cfg.SearchTerms, uaCache: map[string]string{}},
		st:       newState(),
		interval: cfg.PollInterval,
		logged:   map[string]bool{},
	}
	if s.wait == nil {
		s.wait = realWait
	}
	s.descs = newDescs()
	return s, nil
}

func realWait(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// Run polls every PollInterval (longer while the store throttles) until
// ctx is done.
func (s *Source) Run(ctx context.Context) {
	for ctx.Err() == nil {
		_ = s.Poll(ctx) // kept in Status
		s.mu.Lock()
		next := s.cfg.Now().Add(s.interval)
		s.mu.Unlock()
		if s.wait(ctx, next) != nil {
			return
		}
	}
}

// listPage is the most keys one List call asks for.
const listPage = 1000

// maxReadAttempts is how many polls in a row may fail to read an object
// before it is skipped (objects_skipped_total{reason="read_error"}).
const maxReadAttempts = 3

// maxBackoff bounds the poll interval while the store throttles.
const maxBackoff = 5 * time.Minute

// Poll lists the objects after the checkpoint, reads those not read yet
// and counts their events once. Its error (also in Status().Err) is one
// line naming the flag at fault; the next poll retries.
func (s *Source) Poll(ctx context.Context) error {
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	now := s.cfg.Now()
	s.mu.Lock()
	st := s.st // Poll is the only writer of st's keys (under pollMu)
	first := !s.started
	s.started = true
	after := st.checkpoint
	s.mu.Unlock()

	changed := false
	var err error
	oldest := now.Add(-s.cfg.LookBack)
	var skippedOld int
list:
	for {
		page, lerr := s.cfg.Store.List(ctx, s.cfg.Prefix, after, listPage)
		if lerr != nil {
			err = lerr
			break
		}
		for _, o := range page {
			if _, ok := st.seen[o.Key]; ok {
				continue
			}
			if first && o.LastModified.Before(oldest) {
				// A first start reads back only --stream.look-back.
				s.mu.Lock()
				st.seen[o.Key] = 0
				s.mu.Unlock()
				skippedOld++
				changed = true
				continue
			}
			c, rerr := s.readOne(ctx, st, o, now)
			changed = changed || c
			if rerr != nil {
				err = rerr
				break list
			}
		}
		if len(page) < listPage {
			break
		}
		after = page[len(page)-1].Key
	}
	if skippedOld > 0 {
		_ = s.cfg.Logger.Log("level", "info", "msg", "stream: first start: objects older than --stream.look-back left unread", "objects", skippedOld, "look_back", s.cfg.LookBack)
	}

	s.mu.Lock()
	if s.advance(st, now) {
		changed = true
	}
	s.expire(st, now)
	s.lastPoll = now
	s.err = s.describeErr(err)
	if errors.Is(err, ErrThrottled) {
		s.interval = min(2*s.interval, max(maxBackoff, s.cfg.PollInterval))
	} else {
		s.interval = s.cfg.PollInterval
	}
	perr := s.err
	s.mu.Unlock()
	if perr != nil && ctx.Err() == nil {
		s.logOnce("poll:"+perr.Error(), "level", "warn", "msg", "stream: poll failed; retrying at the next poll", "err", perr)
	}
	if changed && s.cfg.OnChange != nil {
		s.cfg.OnChange()
	}
	return perr
}

// readOne reads and counts one object. It returns whether the state
// changed, and an error that ends the poll (access, bucket, region,
// throttling, or ctx ending).
func (s *Source) readOne(ctx context.Context, st *state, o ObjectInfo, now time.Time) (bool, error) {
	body, _, err := s.cfg.Store.Open(ctx, o.Key)
	if err == nil {
		var res *objectResult
		res, err = s.parser.readObject(body)
		body.Close()
		if err == nil {
			s.mu.Lock()
			s.apply(st, res, now)
			st.seen[o.Key] = now.Unix()
			delete(st.attempts, o.Key)
			if o.LastModified.After(st.lastObject) {
				st.lastObject = o.LastModified
			}
			s.mu.Unlock()
			for reason := range res.refused {
				s.logOnce("refused:"+reason, "level", "warn", "msg", "stream: lines refused", "reason", reason, "object", sanitize(o.Key, maxLabelLen))
			}
			return true, nil
		}
	}
	skip := ""
	switch {
	case errors.Is(err, ErrNotFound):
		skip = skipNotFound
	case errors.Is(err, errBadGzip):
		skip = skipBadGzip
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.Is(err, ErrAccessDenied), errors.Is(err, ErrNoBucket), errors.Is(err, ErrWrongRegion), errors.Is(err, ErrThrottled):
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if skip == "" {
		st.attempts[o.Key]++
		if st.attempts[o.Key] < maxReadAttempts {
			s.logOnceLocked("readerr:"+o.Key, "level", "warn", "msg", "stream: reading an object failed; retrying at the next poll", "object", sanitize(o.Key, maxLabelLen), "err", oneLine(err))
			return true, nil
		}
		skip = skipReadError
	}
	delete(st.attempts, o.Key)
	st.seen[o.Key] = now.Unix()
	st.counters[series{f: fSkipped, a: skip}]++
	s.logOnceLocked("skip:"+skip, "level", "warn", "msg", "stream: object skipped", "reason", skip, "object", sanitize(o.Key, maxLabelLen), "err", oneLine(err))
	return true, nil
}

// advance moves the checkpoint past the lowest keys whose first sight is
// older than the look-back, stopping at the first key still young or not
// read yet, and forgets them. Called with s.mu held.
func (s *Source) advance(st *state, now time.Time) bool {
	horizon := now.Add(-s.cfg.LookBack).Unix()
	keys := make([]string, 0, len(st.seen)+len(st.attempts))
	for k, t := range st.seen {
		if t < horizon {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return false
	}
	lowestYoung := ""
	for k, t := range st.seen {
		if t >= horizon && (lowestYoung == "" || k < lowestYoung) {
			lowestYoung = k
		}
	}
	for k := range st.attempts {
		if lowestYoung == "" || k < lowestYoung {
			lowestYoung = k
		}
	}
	sort.Strings(keys)
	moved := false
	for _, k := range keys {
		if lowestYoung != "" && k > lowestYoung {
			break
		}
		if k > st.checkpoint {
			st.checkpoint = k
		}
		delete(st.seen, k)
		moved = true
	}
	return moved
}

// describeErr turns a poll's error into one line naming what to fix,
// wrapping the Store sentinel so callers can still tell it.
func (s *Source) describeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrAccessDenied):
		return fmt.Errorf("stream: access denied to --stream.s3.bucket: give the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE or the role) s3:ListBucket and s3:GetObject on it (%s): %w", oneLine(err), ErrAccessDenied)
	case errors.Is(err, ErrNoBucket):
		return fmt.Errorf("stream: --stream.s3.bucket: no such bucket (%s): %w", oneLine(err), ErrNoBucket)
	case errors.Is(err, ErrWrongRegion):
		return fmt.Errorf("stream: --stream.s3.region: the bucket is in another region; set it to the bucket's (%s): %w", oneLine(err), ErrWrongRegion)
	case errors.Is(err, ErrThrottled):
		return fmt.Errorf("stream: the bucket asks to slow down: polling less often until it stops (%s): %w", oneLine(err), ErrThrottled)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("stream: poll stopped: %w", err)
	}
	return fmt.Errorf("stream: polling --stream.s3.bucket failed, retrying at the next poll: %s", oneLine(err))
}

func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

func (s *Source) logOnce(kind string, kv ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logOnceLocked(kind, kv...)
}

// maxLogged bounds the kinds remembered; past it the set starts again.
const maxLogged = 1000

func (s *Source) logOnceLocked(kind string, kv ...any) {
	if s.logged[kind] {
		return
	}
	if len(s.logged) >= maxLogged {
		clear(s.logged)
	}
	s.logged[kind] = true
	_ = s.cfg.Logger.Log(kv...)
}

// Status returns the source's health.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	now := s.cfg.Now()
	out := Status{
		Prefix:         s.cfg.Prefix,
		LastPoll:       s.lastPoll,
		LastObjectTime: st.lastObject,
		NewestEvent:    st.newest,
		Objects:        int64(st.counters[series{f: fObjects}]),
		Lines:          int64(st.counters[series{f: fLines}]),
		Duplicates:     int64(st.counters[series{f: fDups}]),
		Refused:        map[string]int64{},
		Err:            s.err,
	}
	if b, ok := s.cfg.Store.(interface{ Bucket() string }); ok {
		out.Bucket = b.Bucket()
	}
	if !st.newest.IsZero() && !s.lastPoll.IsZero() {
		out.Lag = max(0, s.lastPoll.Sub(st.newest))
	}
	for k, v := range st.counters {
		switch k.f {
		case fEvents:
			out.Events += int64(v)
		case fRefused:
			out.Refused[k.a] += int64(v)
		}
	}
	minute := now.Unix() / 60
	var n int64
	for m, c := range st.perMinute {
		if m > minute-10 && m <= minute {
			n += c
		}
	}
	out.EventsPerMinute = float64(n) / 10
	return out
}
