// Package metricshandler serves /metrics: the analytics families pre-rendered
// by package engine, followed by the live part gathered at every scrape, so
// a text scrape costs little more than copying bytes. Clients that want
// only protobuf or OpenMetrics get client_golang's answer (the slow path).
package metricshandler

import (
	"bytes"
	"cmp"
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

	"github.com/mintlify-exporter/mintlify_exporter/exposition"
)

// Cached is the engine: the pre-rendered families, and the same as a
// prometheus.Collector for the slow path.
type Cached interface {
	prometheus.Collector
	Touch()                             // wakes the worker; never waits
	Exposition() *exposition.Exposition // the current pre-rendered families
}

// Config configures the handler.
type Config struct {
	// Live gathers everything but the cached families.
	Live prometheus.Gatherer
	// Cached is the engine; nil serves the live part only.
	Cached Cached
	// MaxRequests bounds concurrent scrapes (--web.max-requests; 0: no
	// limit), in two pools: text and slow path (see ServeHTTP).
	MaxRequests int
	Instrument  prometheus.Registerer // receives promhttp's handler metrics
	Logger      log.Logger
}

type handler struct {
	cfg          Config
	inflight     chan struct{} // slots of text scrapes, held while preparing
	slowInflight chan struct{} // slots of the slow path, held while sending too
	slow         http.Handler
}

// New returns the /metrics handler.
func New(cfg Config) http.Handler {
	cfg.Logger = cmp.Or(cfg.Logger, log.NewNopLogger())
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
	if cfg.Instrument == nil {
		return h
	}
	return promhttp.InstrumentMetricHandler(cfg.Instrument, h)
}

type errorLogger struct{ l log.Logger }

func (e errorLogger) Println(v ...any) {
	level.Error(e.l).Log("msg", "error gathering metrics", "err", fmt.Sprint(v...))
}

// ServeHTTP implements http.Handler. A text scrape holds a slot only while
// it prepares its answer, so slow readers cannot hold every slot; the slow
// path writes as it encodes and holds one until sent, in a pool of its own.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Prometheus prefers OpenMetrics but accepts text: like node_exporter,
	// answer in text, from the pre-rendered bytes, whenever accepted.
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	w.Header().Add("Vary", "Accept") // the format depends on Accept
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
	aw := &abortWriter{ResponseWriter: w}
	if text {
		h.serveText(aw, r, format, release)
	} else {
		h.slow.ServeHTTP(aw, r)
	}
	if aw.err != nil {
		level.Debug(h.cfg.Logger).Log("msg", "scrape answer not fully sent", "err", aw.err)
	}
}

// abortWriter discards the rest of an answer after a write failed, where
// promhttp would log every remaining family; err is logged once.
type abortWriter struct {
	http.ResponseWriter
	err error
}

// Write implements io.Writer.
func (a *abortWriter) Write(p []byte) (int, error) {
	if a.err == nil {
		_, a.err = a.ResponseWriter.Write(p)
	}
	return len(p), nil
}

// Unwrap gives http.ResponseController the client's writer.
func (a *abortWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// serveText writes the pre-rendered exposition and the live part, calling
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
	expo := emptyExposition
	if h.cfg.Cached != nil {
		expo = cmp.Or(h.cfg.Cached.Exposition(), emptyExposition)
	}
	release()
	hdr := w.Header()
	hdr.Set("Content-Type", string(format))
	if accepts(r.Header.Get("Accept-Encoding"), "gzip", false) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		_ = expo.WriteGzip(w, live.Bytes()) // a failed write is abortWriter's
	} else {
		hdr.Set("Content-Length", strconv.Itoa(expo.TextLen()+live.Len()))
		_ = expo.WriteText(w)
		_, _ = w.Write(live.Bytes())
	}
}

var emptyExposition = &exposition.Exposition{}

// accepts reports whether an Accept or Accept-Encoding value accepts name
// with a non-zero quality, directly or by wildcard; an empty header accepts
// it when emptyAccepts is set.
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
