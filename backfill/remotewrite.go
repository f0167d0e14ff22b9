package backfill

// Remote write 1.0 with prompb's types and client_golang/exp's client,
// which retries 5xx, 429 and network errors only (go.mod says why these).

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/prompb"
	"go.yaml.in/yaml/v2"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// remoteBackoff's 10 retries ride out a receiver's restart (about 5
// minutes); the package's tests retry without waiting.
var remoteBackoff = remote.BackoffConfig{Min: time.Second, Max: time.Minute, MaxRetries: 10}

// DefaultRemoteTimeout bounds one request, as Prometheus' remote_timeout.
const DefaultRemoteTimeout = 30 * time.Second

// MaxRetryAfter keeps a receiver from parking the backfill for hours.
const MaxRetryAfter = 5 * time.Minute

// MaxSamplesPerRequest caps a request of whole fetches (one may exceed it).
const MaxSamplesPerRequest = 2000

// RemoteWriter sends samples to a remote-write receiver.
type RemoteWriter struct {
	url string // redacted (userinfo and query values): for people
	// id is url and a hash of the whole URL, for the journal: a resume to
	// a URL that differs in a query value only is to another receiver.
	id      string
	secrets []string
	api     *remote.API
	last    *headerTransport
	// whole: no journal (a stream backfill): the remedy is to run it again.
	whole bool
}

// remoteWriteFile is the --remote-write.config file.
type remoteWriteFile struct {
	RemoteTimeout model.Duration    `yaml:"remote_timeout,omitempty"`
	Headers       map[string]string `yaml:"headers,omitempty"`
	// Named, not embedded: embedded, its UnmarshalYAML would be promoted
	// and parse the whole file, refusing remote_timeout and headers.
	HTTPClientConfig config.HTTPClientConfig `yaml:",inline"`
}

// reservedHeaders may not be set by a headers entry, as in Prometheus.
var reservedHeaders = []string{
	"Authorization", "Host", "Content-Encoding", "Content-Length", "Content-Type", "User-Agent",
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Www-Authenticate",
	"Accept-Encoding", "X-Prometheus-Remote-Write-Version", "Upgrade", "Transfer-Encoding",
}

// NewRemoteWriter checks rawURL (the write endpoint) and configFile
// (Prometheus' remote_write HTTP settings); its errors hold no secret.
func NewRemoteWriter(rawURL, configFile, userAgent string) (*RemoteWriter, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--remote-write.url=%s: want an http or https URL of the receiver's write endpoint, such as http://prometheus:9090/api/v1/write", redactURL(rawURL))
	}
	if u.User != nil {
		return nil, fmt.Errorf("--remote-write.url=%s: credentials do not belong on the command line: put them in --remote-write.config (basic_auth with password_file, or authorization)", redactURL(rawURL))
	}
	f := remoteWriteFile{RemoteTimeout: model.Duration(DefaultRemoteTimeout), HTTPClientConfig: config.DefaultHTTPClientConfig}
	if configFile != "" {
		if err := readRemoteWriteFile(configFile, &f); err != nil {
			return nil, err
		}
	}
	client, err := config.NewClientFromConfig(f.HTTPClientConfig, "remote_write", config.WithUserAgent(userAgent))
	if err != nil {
		return nil, fmt.Errorf("--remote-write.config=%s: %v", configFile, err)
	}
	// A redirect is not followed, whatever follow_redirects says: the samples
	// would go elsewhere than reported and journaled; send reports the 3xx.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	last := &headerTransport{next: client.Transport, headers: f.Headers}
	client.Transport, client.Timeout = last, time.Duration(f.RemoteTimeout)
	api, err := remote.NewAPI(u.String(),
		remote.WithAPIHTTPClient(client),
		remote.WithAPIPath(""), // the URL is the whole endpoint, as in Prometheus' remote_write
		remote.WithAPIBackoff(remoteBackoff))
	w := &RemoteWriter{url: redactURL(rawURL), api: api, last: last}
	sum := sha256.Sum256([]byte(u.String()))
	w.id = fmt.Sprintf("%s (sha256 %x)", w.url, sum[:8])
	if u.RawQuery != "" {
		w.secrets = append(w.secrets, u.RawQuery)
		for _, vs := range u.Query() {
			for _, v := range vs {
				if len(v) >= minSecretLen {
					w.secrets = append(w.secrets, v, url.QueryEscape(v))
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--remote-write.url=%s: %v", w.url, w.scrub(err.Error()))
	}
	return w, nil
}

// minSecretLen: shorter query values (such as "1") are no secrets, and
// scrubbing them would blank out unrelated text.
const minSecretLen = 4

// scrub takes the URL's query out of s (client errors quote the URL).
func (w *RemoteWriter) scrub(s string) string {
	for _, sec := range w.secrets {
		s = strings.ReplaceAll(s, sec, "xxxxx")
	}
	return s
}

func readRemoteWriteFile(path string, f *remoteWriteFile) error {
	flag := "--remote-write.config=" + path // its file errors leave out the path (errors.Unwrap)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %v", flag, errors.Unwrap(err))
	}
	if err := yaml.UnmarshalStrict(data, f); err != nil {
		// The parser quotes values (`...`): they may be secrets.
		msg := quoted.ReplaceAllString(strings.ReplaceAll(err.Error(), "\n", "; "), "a value")
		if strings.Contains(msg, "field url ") {
			msg += " (the URL is --remote-write.url)"
		}
		return fmt.Errorf("%s: %s", flag, msg)
	}
	f.HTTPClientConfig.SetDirectory(filepath.Dir(path))
	if err := f.HTTPClientConfig.Validate(); err != nil {
		return fmt.Errorf("%s: %v", flag, err)
	}
	for h := range f.Headers {
		if slices.ContainsFunc(reservedHeaders, func(r string) bool { return strings.EqualFold(h, r) }) {
			return fmt.Errorf("%s: the header %s is set by the protocol or the HTTP settings; remove it from headers", flag, h)
		}
	}
	if f.RemoteTimeout <= 0 {
		return fmt.Errorf("%s: remote_timeout must be above zero", flag)
	}
	// The client reads these files at each request, where a missing one
	// would look like a network error and be retried for minutes.
	c := &f.HTTPClientConfig
	b, a, o := cmp.Or(c.BasicAuth, &config.BasicAuth{}), cmp.Or(c.Authorization, &config.Authorization{}), cmp.Or(c.OAuth2, &config.OAuth2{})
	for _, file := range [][2]string{ // setting, file
		{"basic_auth.username_file", b.UsernameFile}, {"basic_auth.password_file", b.PasswordFile},
		{"authorization.credentials_file", a.CredentialsFile}, {"oauth2.client_secret_file", o.ClientSecretFile},
		{"bearer_token_file", c.BearerTokenFile}, {"tls_config.ca_file", c.TLSConfig.CAFile},
		{"tls_config.cert_file", c.TLSConfig.CertFile}, {"tls_config.key_file", c.TLSConfig.KeyFile},
	} {
		if fh, err := os.Open(file[1]); err == nil {
			fh.Close()
		} else if file[1] != "" {
			return fmt.Errorf("%s: %s %s: %v", flag, file[0], file[1], errors.Unwrap(err))
		}
	}
	return nil
}

// quoted matches a value the YAML parser quotes in its errors.
var quoted = regexp.MustCompile("`[^`]*`")

// redactURL is s without userinfo, fragment and query values, even unparsed:
// a token in the query never reaches a log line, an error or the journal.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		u.User, u.Fragment, u.RawFragment = nil, "", ""
		q := u.Query()
		for k, vs := range q {
			q[k] = slices.Repeat([]string{"xxxxx"}, len(vs))
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i] + "?xxxxx"
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "xxxxx" + s[i:]
	}
	return s
}

// URL is the receiver's URL, without userinfo and query values.
func (w *RemoteWriter) URL() string { return w.url }

// send sends one request, calling onRetry before each retry; its error
// says in one line what the receiver answered and what to do.
func (w *RemoteWriter) send(ctx context.Context, req *prompb.WriteRequest, onRetry func(error)) error {
	_, err := w.api.Write(ctx, remote.WriteV1MessageType, req, remote.WithWriteRetryCallback(onRetry))
	if err == nil || ctx.Err() != nil {
		return err
	}
	code, msg := w.last.code.Load(), oneLine(w.scrub(err.Error()), 300)
	again, nothingTwice := "run again with --resume", ": nothing sent is sent again"
	if w.whole {
		again, nothingTwice = "run the backfill again (a backfill from the event stream has no journal; the receiver keeps samples sent twice once)", ""
	}
	switch {
	case code/100 == 3:
		to := "nowhere (no Location)"
		if loc := w.last.location.Load(); loc != nil && *loc != "" {
			to = redactURL(w.scrub(*loc))
		}
		return fmt.Errorf("remote write to %s: the receiver answered %d, a redirect to %s, which is not followed (the samples would go elsewhere than --remote-write.url says): set --remote-write.url to the address that accepts them", w.url, code, to)
	case code == 0 || code >= 500 || code == http.StatusTooManyRequests:
		return fmt.Errorf("remote write to %s failed after %d retries: %s; when the receiver is back, %s%s", w.url, remoteBackoff.MaxRetries, msg, again, nothingTwice)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("remote write to %s refused: %s; check the credentials in --remote-write.config (basic_auth, authorization, headers such as X-Scope-OrgID)", w.url, msg)
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return fmt.Errorf("remote write to %s: %s; check --remote-write.url: Prometheus' receiver is /api/v1/write and needs --web.enable-remote-write-receiver", w.url, msg)
	}
	return fmt.Errorf("remote write to %s refused the samples: %s; a receiver refuses samples older than it accepts (its out-of-order window, see docs/backfill.md): fix it and %s", w.url, msg, again)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// headerTransport adds the headers, caps Retry-After and keeps the last
// status and Location (the client gives them in text only).
type headerTransport struct {
	next     http.RoundTripper
	headers  map[string]string
	code     atomic.Int32
	location atomic.Pointer[string]
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.code.Store(0)
		return nil, err
	}
	t.code.Store(int32(resp.StatusCode))
	loc := resp.Header.Get("Location")
	t.location.Store(&loc)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		resp.Header.Set("Retry-After", capRetryAfter(ra, time.Now()))
	}
	return resp, nil
}

// capRetryAfter returns Retry-After as seconds, at most MaxRetryAfter ("0"
// when it does not parse, as the client would).
func capRetryAfter(v string, now time.Time) string {
	d, _ := client.ParseRetryAfter(v, now)
	return strconv.FormatInt(int64(min(d, MaxRetryAfter)/time.Second), 10)
}

// batches splits entries into requests of whole fetches.
func batches(entries []*entry) [][]*entry {
	var out [][]*entry
	n := 0
	for _, e := range entries {
		k := 0
		for _, f := range e.Families {
			k += len(f.Series)
		}
		if len(out) == 0 || n+k > MaxSamplesPerRequest { // the last batch is never empty
			out, n = append(out, nil), 0
		}
		out[len(out)-1] = append(out[len(out)-1], e)
		n += k
	}
	return out
}

// writeRequest builds the request of entries, in protocol order.
func writeRequest(entries []*entry, target []Label) (*prompb.WriteRequest, int) {
	req := &prompb.WriteRequest{}
	index := map[string]int{} // of a label set's series in req
	n := 0
	for _, e := range entries {
		ts := e.stamp() * 1000
		for _, f := range e.Families {
			if !slices.ContainsFunc(req.Metadata, func(m prompb.MetricMetadata) bool { return m.MetricFamilyName == f.Name }) {
				req.Metadata = append(req.Metadata, prompb.MetricMetadata{Type: prompb.MetricMetadata_GAUGE, MetricFamilyName: f.Name, Help: f.Help})
			}
			for _, s := range f.Series {
				ls := append(make([]prompb.Label, 0, 3+len(target)+len(f.Labels)), prompb.Label{Name: model.MetricNameLabel, Value: f.Name},
					prompb.Label{Name: "project", Value: e.Project}, prompb.Label{Name: "window", Value: Window})
				for _, l := range target {
					ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
				}
				for i, n := range f.Labels {
					if s.L[i] != "" {
						ls = append(ls, prompb.Label{Name: n, Value: s.L[i]})
					}
				}
				// Sorted, and one label per name (the first: a journal may be
				// made by hand; Run refuses target labels that clash).
				slices.SortStableFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) })
				ls = slices.CompactFunc(ls, func(a, b prompb.Label) bool { return a.Name == b.Name })
				kb, _ := (&prompb.TimeSeries{Labels: ls}).Marshal() // the label set's key
				i, ok := index[string(kb)]
				if !ok {
					i, index[string(kb)] = len(req.Timeseries), len(req.Timeseries)
					req.Timeseries = append(req.Timeseries, prompb.TimeSeries{Labels: ls})
				}
				t := &req.Timeseries[i]
				if last := len(t.Samples) - 1; last >= 0 && t.Samples[last].Timestamp >= ts {
					continue // the same fetch twice: keep the first
				}
				t.Samples = append(t.Samples, prompb.Sample{Value: s.value(), Timestamp: ts})
				n++
			}
		}
	}
	slices.SortFunc(req.Metadata, func(a, b prompb.MetricMetadata) int { return strings.Compare(a.MetricFamilyName, b.MetricFamilyName) })
	return req, n
}

// sendUnsent sends the unsent entries oldest first, journaling each request.
func (r *runner) sendUnsent(ctx context.Context) error {
	rw := r.cfg.RemoteWrite
	if rw == nil {
		return nil
	}
	for _, b := range batches(r.journal.unsent(r.res.Sources)) {
		req, n := writeRequest(b, r.cfg.Labels)
		retry := 0
		err := rw.send(ctx, req, func(err error) {
			retry++
			r.note(fmt.Sprintf("remote write: %s; retry %d of %d", oneLine(rw.scrub(err.Error()), 200), retry, remoteBackoff.MaxRetries))
		})
		if ctx.Err() != nil {
			r.res.Interrupted = true
			return nil
		}
		if err != nil {
			return err
		}
		keys := make([]key, len(b)) // the receiver accepted their samples
		for i, e := range b {
			keys[i] = e.key()
			r.journal.sent[keys[i]] = true
		}
		if err := r.journal.writeJSON(map[string][]key{"sent": keys}); err != nil {
			return err
		}
		r.res.Samples += n
		r.res.WriteRequests++
		days := b[0].Day
		if last := b[len(b)-1].Day; last != days {
			days += ".." + last
		}
		if r.cfg.Terminal {
			r.redraw("")
		} else {
			fmt.Fprintf(r.cfg.Progress, "%s sent: %s to %s (%s in all)\n", days, plural(n, "sample"), rw.URL(), plural(r.res.Samples, "sample"))
		}
	}
	return nil
}
