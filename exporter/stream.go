package exporter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/health"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
	"github.com/mintlify-exporter/mintlify_exporter/stream/s3store"
)

// StreamConfig configures the event-stream source (the --stream.* flags,
// docs/stream.md); a nil *StreamConfig turns it off.
type StreamConfig struct {
	Bucket, Prefix, Region, Endpoint string
	// AccessKeyID and SecretAccessKey replace the AWS credential chain
	// (the demo's own S3 server, tests); no flag sets them.
	AccessKeyID, SecretAccessKey string
	PollInterval, LookBack       time.Duration
	// Projects maps a deployment's subdomain to its project id.
	Projects               map[string]string
	MaxPaths, TopReferrers int
	SearchTerms            bool
	TrafficRules, EventMap string
	// KeepREST keeps the REST sources the stream replaces (StreamReplaces)
	// for the projects it maps; by default their budget goes to the rest.
	KeepREST bool
}

// StreamReplaces are the REST sources whose figures the stream counts
// exactly (page views by path and class, feedback by page and kind,
// searches): for a project the stream maps, their units are not made and
// their requests go to what only REST has (the vendor's unique visitors,
// assistant callers, conversation resolution).
var StreamReplaces = []string{"views", "feedback", "searches"}

// omitForStream returns the engine's Omit: the sources the stream
// replaces, for the projects it maps; nil when nothing is omitted.
func omitForStream(sc *StreamConfig) func(source, project string) bool {
	if sc == nil || sc.KeepREST || len(sc.Projects) == 0 {
		return nil
	}
	mapped := map[string]bool{}
	for _, id := range sc.Projects {
		mapped[id] = true
	}
	return func(source, project string) bool {
		return mapped[project] && slices.Contains(StreamReplaces, source)
	}
}

// StreamSource is the name of the stream in mintlify_up's source label.
const StreamSource = "stream"

// streamPart is the one part of the stream's health pairs: the stream has
// no window and one part, as the job watcher.
const streamPart = health.PartAll

// buildStream builds the event-stream source on its S3 store, restores it
// from the cache file's section (a bad section is ignored with one
// warning) and registers it; it is started by start.
func (x *Exporter) buildStream(ctx context.Context, cfg Config) error {
	sc := cfg.Stream
	store, err := s3store.New(ctx, s3store.Options{Bucket: sc.Bucket, Region: sc.Region, Endpoint: sc.Endpoint,
		AccessKeyID: sc.AccessKeyID, SecretAccessKey: sc.SecretAccessKey})
	if err != nil {
		return err
	}
	var onChange func()
	if x.saver != nil {
		onChange = x.saver.Changed
	}
	src, err := stream.New(stream.Config{
		Store: store, Prefix: sc.Prefix, PollInterval: sc.PollInterval, LookBack: sc.LookBack, Projects: sc.Projects,
		MaxPaths: sc.MaxPaths, TopReferrers: sc.TopReferrers, SearchTerms: sc.SearchTerms,
		TrafficRules: sc.TrafficRules, EventMap: sc.EventMap,
		Logger: log.With(cfg.Logger, "component", "stream"), OnChange: onChange,
	})
	if err != nil {
		return err
	}
	if x.saved != nil && len(x.saved.Stream) > 0 {
		if err := src.Restore(x.saved.Stream); err != nil {
			level.Warn(cfg.Logger).Log("msg", "ignoring the event stream's section of the cache file; the stream is read again from --stream.look-back", "file", cfg.CacheFile, "err", err)
		} else {
			level.Info(cfg.Logger).Log("msg", "restored the event stream's checkpoint and counters from the cache file", "file", cfg.CacheFile)
		}
	}
	x.stream = src
	projects := streamUpProjects(sc.Projects, cfg.Projects)
	for _, pr := range projects {
		x.status.Track(pr, StreamSource, "", streamPart)
		x.status.SetInterval(pr, StreamSource, "", streamPart, sc.PollInterval)
	}
	x.live.MustRegister(src, syncedStatus{x.status, func() { syncStreamHealth(x.status, src.Status(), projects) }})
	return nil
}

// streamUpProjects are the projects of mintlify_up{source="stream"}: the
// mapped projects (--stream.project); without a mapping, the REST
// projects; with neither, one pair with an empty project label. The
// source's health is one (its last poll's), so every pair shows it.
func streamUpProjects(mapped map[string]string, rest []string) []string {
	var out []string
	for _, id := range mapped {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		out = append(out, rest...)
	}
	if len(out) == 0 {
		out = []string{""}
	}
	sort.Strings(out)
	return out
}

// syncStreamHealth records the source's last poll in the health of every
// pair: failed when it returned an error, succeeded at its time otherwise;
// nothing before the first poll (not tried is not a failure).
func syncStreamHealth(status *health.Status, st stream.Status, projects []string) {
	for _, pr := range projects {
		switch {
		case st.Err != nil:
			status.Failed(pr, StreamSource, "", streamPart, 0)
		case !st.LastPoll.IsZero():
			status.Succeeded(pr, StreamSource, "", streamPart, st.LastPoll, 0)
		}
	}
}

// syncedStatus is the health collector, brought up to date with the
// stream's last poll at every scrape.
type syncedStatus struct {
	*health.Status
	sync func()
}

// Collect implements prometheus.Collector.
func (s syncedStatus) Collect(ch chan<- prometheus.Metric) {
	s.sync()
	s.Status.Collect(ch)
}

// streamView is the landing page's section of the stream.
func streamView(src *stream.Source, sc *StreamConfig) func() stream.Status {
	return func() stream.Status {
		st := src.Status()
		st.Bucket, st.Prefix = sc.Bucket, sc.Prefix
		return st
	}
}

// streamSnapshot is the saver's stream part.
func (x *Exporter) streamSnapshot() (json.RawMessage, error) {
	if x.stream == nil {
		return nil, fmt.Errorf("the event stream is not built")
	}
	return x.stream.Snapshot()
}
