// Package metricshandler serves the exporter's /metrics endpoint.
//
// A scrape is made of two parts. The analytics families of every source
// (possibly hundreds of thousands of series) are rendered to text and
// compressed once per refresh by package engine; the small live part
// (health, budget, request metrics, agent jobs, build info, Go and process
// metrics) is gathered from a registry at every scrape. For the text format, the handler writes the
// pre-rendered bytes followed by the live part, so a scrape costs little more
// than copying bytes. No family is split across the two parts. Clients that
// ask only for protobuf or OpenMetrics are served by client_golang from the
// same data (the slow path).
package metricshandler

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/engine/exposition"
)

// Cached is what the handler needs of the engine: the pre-rendered
// families, and the same as a prometheus.Collector for the slow path.
type Cached interface {
	prometheus.Collector
	// Touch wakes the engine's worker; it never waits.
	Touch()
	// Exposition is the current pre-rendered exposition.
	Exposition() *exposition.Exposition
}

// Config configures the handler.
type Config struct {
	// Live gathers everything but the cached families, at every scrape.
	Live prometheus.Gatherer
	// Cached is the engine; nil serves the live part only.
	Cached Cached
	// MaxRequests bounds concurrent scrapes (--web.max-requests); the
	// excess is answered 503. 0 means no limit. Text scrapes count while
	// their answer is prepared; scrapes of the slow path (protobuf,
	// OpenMetrics only) count, in a pool of their own, until it is sent.
	MaxRequests int
	// Instrument, when set, receives promhttp's handler metrics.
	Instrument prometheus.Registerer
	Logger     log.Logger
}

type handler struct {
	cfg          Config
	inflight     chan struct{} // slots of text scrapes, held while preparing
	slowInflight chan struct{} // slots of the slow path, held while sending too
	slow         http.Handler
}

// New returns the /metrics handler.
func New(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = log.NewNopLogger()
	}
	h := &handler{cfg: cfg}
	if cfg.MaxRequests > 0 {
		h.inflight = make(chan struct{}, cfg.MaxRequests)
		h.slowInflight = make(chan struct{}, cfg.MaxRequests)
	}
	gatherers := prometheus.Gatherers{cfg.Live}
	if cfg.Cached != nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(cfg.Cached)
		gatherers = append(gatherers, reg)
	}
	h.slow = promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{
		ErrorLog:          errorLogger{cfg.Logger},
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
	var out http.Handler = h
	if cfg.Instrument != nil {
		out = promhttp.InstrumentMetricHandler(cfg.Instrument, h)
	}
	return out
}

type errorLogger struct{ l log.Logger }

func (e errorLogger) Println(v ...any) {
	level.Error(e.l).Log("msg", "error gathering metrics", "err", fmt.Sprint(v...))
}

// ServeHTTP implements http.Handler.
//
// A text scrape (every Prometheus scrape) holds one of the MaxRequests
// slots while it prepares its answer and gives it back before it sends the
// answer, so clients that read slowly cannot hold every slot: what they
// are sent is the shared pre-rendered exposition, and the server's write
// timeout ends them. The slow path (protobuf, OpenMetrics only) writes as
// it encodes, so it holds a slot until its answer is sent: its slots are a
// pool of their own, of the same size, so slow readers of that path cannot
// refuse the text scrapes either.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Prometheus prefers OpenMetrics but accepts the text format; like
	// node_exporter, the exporter answers such scrapes in the text format,
	// from the pre-rendered bytes. Clients that prefer protobuf, or accept
	// no text at all, get client_golang's answer.
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	// The answer's format depends on Accept: caches must know it.
	w.Header().Add("Vary", "Accept")
	text := format.FormatType() == expfmt.TypeTextPlain && accepts(r.Header.Get("Accept"), "text/plain", true)
	pool := h.inflight
	if !text {
		pool = h.slowInflight
	}
	release := func() {}
	if pool != nil {
		select {
		case pool <- struct{}{}:
			release = sync.OnceFunc(func() { <-pool })
			defer release()
		default:
			http.Error(w, fmt.Sprintf("Limit of concurrent requests reached (%d), try again later.", h.cfg.MaxRequests),
				http.StatusServiceUnavailable)
			return
		}
	}
	if h.cfg.Cached != nil {
		h.cfg.Cached.Touch()
	}
	if !text {
		aw := &abortWriter{ResponseWriter: w}
		h.slow.ServeHTTP(aw, r)
		if aw.err != nil {
			level.Debug(h.cfg.Logger).Log("msg", "scrape answer not fully sent", "err", aw.err)
		}
		return
	}
	h.serveText(w, r, format, release)
}

// abortWriter passes an answer to the client until a write fails (the
// client went away), then discards the rest: promhttp would log one error
// per metric family of an aborted scrape (dozens of "broken pipe" lines in
// a millisecond). err is the first failure, which the handler logs once.
type abortWriter struct {
	http.ResponseWriter
	err error
}

// Write implements io.Writer.
func (a *abortWriter) Write(p []byte) (int, error) {
	if a.err == nil {
		if _, err := a.ResponseWriter.Write(p); err != nil {
			a.err = err
		}
	}
	return len(p), nil
}

// Unwrap gives http.ResponseController the client's writer.
func (a *abortWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// serveText writes the pre-rendered exposition and the live part; it calls
// release once the answer is ready, before sending it.
func (h *handler) serveText(w http.ResponseWriter, r *http.Request, format expfmt.Format, release func()) {
	mfs, err := h.cfg.Live.Gather()
	if err != nil {
		level.Error(h.cfg.Logger).Log("msg", "error gathering metrics", "err", err)
		if len(mfs) == 0 {
			http.Error(w, "An error has occurred while gathering metrics:\n\n"+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	var live bytes.Buffer
	enc := expfmt.NewEncoder(&live, format)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			level.Error(h.cfg.Logger).Log("msg", "error encoding metric family", "family", mf.GetName(), "err", err)
		}
	}
	var expo *exposition.Exposition
	if h.cfg.Cached != nil {
		expo = h.cfg.Cached.Exposition()
	}
	release()
	hdr := w.Header()
	hdr.Set("Content-Type", string(format))
	if accepts(r.Header.Get("Accept-Encoding"), "gzip", false) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		if expo == nil {
			expo = emptyExposition
		}
		if err := expo.WriteGzip(w, live.Bytes()); err != nil {
			level.Debug(h.cfg.Logger).Log("msg", "scrape answer not fully sent", "err", err)
		}
		return
	}
	size := live.Len()
	if expo != nil {
		size += expo.TextLen()
	}
	hdr.Set("Content-Length", strconv.Itoa(size))
	if expo != nil {
		if err := expo.WriteText(w); err != nil {
			level.Debug(h.cfg.Logger).Log("msg", "scrape answer not fully sent", "err", err)
			return
		}
	}
	_, _ = w.Write(live.Bytes())
}

var emptyExposition = &exposition.Exposition{}

// accepts reports whether an Accept or Accept-Encoding header value accepts
// name (such as "text/plain" or "gzip") with a non-zero quality, directly or
// through a wildcard ("text/*", "*/*", "*"). An empty header accepts name
// when emptyAccepts is set (an absent Accept means anything; an absent
// Accept-Encoding means no compression).
func accepts(header, name string, emptyAccepts bool) bool {
	if strings.TrimSpace(header) == "" {
		return emptyAccepts
	}
	major, _, _ := strings.Cut(name, "/")
	// An exact match decides over wildcards ("gzip;q=0, *" refuses gzip).
	exact, wild := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(part, ";")
		r := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, p := range fields[1:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.TrimSpace(k) == "q" {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch r {
		case name:
			exact = max(exact, q)
		case "*", "*/*", major + "/*":
			wild = max(wild, q)
		}
	}
	if exact >= 0 {
		return exact > 0
	}
	return wild > 0
}
