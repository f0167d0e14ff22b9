package stream_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/logbuf"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

var t0 = time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)

// memStore is an in-memory bucket: objects by key, with faults to inject.
type memStore struct {
	mu      sync.Mutex
	objs    map[string]memObject
	listErr error            // returned by List while set
	openErr map[string]error // returned by Open for a key
	vanish  map[string]bool  // listed, but gone when opened
	lists   int
	opens   map[string]int
}

type memObject struct {
	body     []byte
	encoding string
	modified time.Time
}

func newMemStore() *memStore {
	return &memStore{objs: map[string]memObject{}, openErr: map[string]error{}, vanish: map[string]bool{}, opens: map[string]int{}}
}

func (m *memStore) put(key string, modified time.Time, body []byte, encoding string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs[key] = memObject{body, encoding, modified}
}

func (m *memStore) List(ctx context.Context, prefix, after string, max int) ([]stream.ObjectInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lists++
	if m.listErr != nil {
		return nil, m.listErr
	}
	var keys []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > max {
		keys = keys[:max]
	}
	out := make([]stream.ObjectInfo, len(keys))
	for i, k := range keys {
		out[i] = stream.ObjectInfo{Key: k, Size: int64(len(m.objs[k].body)), LastModified: m.objs[k].modified}
	}
	return out, nil
}

func (m *memStore) Open(ctx context.Context, key string) (io.ReadCloser, stream.ObjectMeta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opens[key]++
	if err := m.openErr[key]; err != nil {
		return nil, stream.ObjectMeta{}, err
	}
	o, ok := m.objs[key]
	if !ok || m.vanish[key] {
		return nil, stream.ObjectMeta{}, fmt.Errorf("get %s: NoSuchKey: %w", key, stream.ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(o.body)), stream.ObjectMeta{ContentEncoding: o.encoding, LastModified: o.modified}, nil
}

// ev is one event a test writes.
type ev struct {
	id, sub, typ, path, ua, ref, user, anon, created string
	props                                            string // raw JSON for properties, "" = none
	stringPayload                                    bool   // payload as a JSON string
}

func (e ev) line() string {
	p := map[string]any{
		"event_id": e.id, "subdomain": e.sub, "event": e.typ, "path": e.path, "user_agent": e.ua,
		"referrer": e.ref, "user_id": e.user, "anon_id": e.anon, "session_id": "sess-" + e.id,
		"ip": "203.0.113.77", "created_at": e.created,
	}
	if e.created == "" {
		p["created_at"] = t0.Format(time.RFC3339)
	}
	if e.props != "" {
		p["properties"] = json.RawMessage(e.props)
	}
	pb, _ := json.Marshal(p)
	var payload any = json.RawMessage(pb)
	if e.stringPayload {
		payload = string(pb)
	}
	b, _ := json.Marshal(map[string]any{"eventType": e.typ, "payload": payload})
	return string(b)
}

func view(id, path string) ev {
	return ev{id: id, sub: "acme", typ: "docs.content.view", path: path, ua: "Mozilla/5.0", anon: "anon-" + id}
}

func lines(evs ...ev) []byte {
	var b bytes.Buffer
	for _, e := range evs {
		b.WriteString(e.line())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// rig is a Source over a memStore on a manual clock.
type rig struct {
	t     *testing.T
	store *memStore
	clock *mintlifytest.Clock
	logs  *logbuf.Buffer
	src   *stream.Source
	cfg   stream.Config
}

func newRig(t *testing.T, mod func(*stream.Config)) *rig {
	t.Helper()
	r := &rig{t: t, store: newMemStore(), clock: mintlifytest.NewClock(t0), logs: &logbuf.Buffer{}}
	r.cfg = stream.Config{
		Store: r.store, PollInterval: 30 * time.Second, LookBack: time.Hour,
		Projects: map[string]string{"acme": "proj-acme"},
		Now:      r.clock.Now, WaitUntil: r.clock.WaitUntil, Logger: log.NewLogfmtLogger(r.logs),
	}
	if mod != nil {
		mod(&r.cfg)
	}
	r.src = r.newSource()
	return r
}

func (r *rig) newSource() *stream.Source {
	r.t.Helper()
	s, err := stream.New(r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

func (r *rig) put(key string, body []byte) { r.store.put(key, r.clock.Now(), body, "") }

func (r *rig) poll() {
	r.t.Helper()
	if err := r.src.Poll(context.Background()); err != nil {
		r.t.Fatalf("poll: %v", err)
	}
}

// value reads one series of the source's exposition.
func (r *rig) value(name string, labels ...string) float64 {
	r.t.Helper()
	return seriesValue(r.t, r.src, name, labels...)
}

func seriesValue(t *testing.T, s *stream.Source, name string, labels ...string) float64 {
	t.Helper()
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	reg := prometheusRegistry(t, s)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			if len(got) != len(want) {
				continue
			}
			for k, v := range want {
				if got[k] != v {
					continue metrics
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

var _ = testutil.CollectAndCompare

func prometheusRegistry(t *testing.T, s *stream.Source) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(s); err != nil {
		t.Fatal(err)
	}
	return reg
}
