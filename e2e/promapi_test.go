package e2e

// Clients of Prometheus' HTTP API and the webhook that receives
// Alertmanager's notifications.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// promAPI queries a Prometheus server's HTTP API.
type promAPI struct{ base string }

// apiError is an error answer of the API (for example bad_data for a query
// that does not parse): retrying does not help.
type apiError struct{ Type, Msg string }

func (e *apiError) Error() string { return e.Type + ": " + e.Msg }

// get sends GET base+path?q and decodes the answer's data into out.
func (p promAPI) get(path string, q url.Values, out any) error {
	resp, err := httpClient.Get(p.base + path + "?" + q.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("GET %s: status %s, body not JSON: %.200s", path, resp.Status, body)
	}
	if env.Status != "success" {
		return &apiError{Type: env.ErrorType, Msg: env.Error}
	}
	return json.Unmarshal(env.Data, out)
}

// sample is one series of an instant query's vector, or one series of a
// matrix with its samples.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"`
	Values [][]any           `json:"values"`
}

// queryResult is the data of /api/v1/query.
type queryResult struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

// series returns the result's series; a scalar or string counts as one
// series without labels.
func (r queryResult) series() ([]sample, error) {
	switch r.ResultType {
	case "vector", "matrix":
		var s []sample
		err := json.Unmarshal(r.Result, &s)
		return s, err
	case "scalar", "string":
		var v []any
		err := json.Unmarshal(r.Result, &v)
		return []sample{{Value: v}}, err
	}
	return nil, fmt.Errorf("unknown result type %q", r.ResultType)
}

// query runs an instant query at time at (now when zero).
func (p promAPI) query(expr string, at time.Time) ([]sample, error) {
	q := url.Values{"query": {expr}}
	if !at.IsZero() {
		q.Set("time", promTime(at))
	}
	var r queryResult
	if err := p.get("/api/v1/query", q, &r); err != nil {
		return nil, err
	}
	return r.series()
}

// labelValues returns the values of label on the series match selects.
func (p promAPI) labelValues(label, match string) ([]string, error) {
	var vals []string
	err := p.get("/api/v1/label/"+url.PathEscape(label)+"/values", url.Values{"match[]": {match}}, &vals)
	return vals, err
}

// promAlert is one alert of /api/v1/alerts.
type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
}

// alerts returns the pending and firing alerts.
func (p promAPI) alerts() ([]promAlert, error) {
	var d struct {
		Alerts []promAlert `json:"alerts"`
	}
	err := p.get("/api/v1/alerts", nil, &d)
	return d.Alerts, err
}

// promRule is one rule of /api/v1/rules.
type promRule struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Duration float64 `json:"duration"`
	Health   string  `json:"health"`
}

// rules returns every loaded rule.
func (p promAPI) rules() ([]promRule, error) {
	var d struct {
		Groups []struct {
			Rules []promRule `json:"rules"`
		} `json:"groups"`
	}
	if err := p.get("/api/v1/rules", nil, &d); err != nil {
		return nil, err
	}
	var out []promRule
	for _, g := range d.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// firstSampleWithValue returns the time of the earliest sample of the
// range query expr whose value is v: the moment a 0/1 series such as
// mintlify_agent_job_status turned 1.
func (p promAPI) firstSampleWithValue(expr string, v float64) (time.Time, error) {
	series, err := p.query(expr, time.Time{})
	if err != nil {
		return time.Time{}, err
	}
	var first float64
	for _, s := range series {
		for _, pair := range s.Values {
			ts, ok := pair[0].(float64)
			str, ok2 := pair[1].(string)
			if !ok || !ok2 {
				continue
			}
			if val, err := strconv.ParseFloat(str, 64); err == nil && val == v {
				if first == 0 || ts < first {
					first = ts
				}
				break
			}
		}
	}
	if first == 0 {
		return time.Time{}, fmt.Errorf("%s has no sample with value %g", expr, v)
	}
	return time.UnixMilli(int64(first*1000 + 0.5)), nil
}

// promTime formats t as the API's Unix seconds with milliseconds.
func promTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

// hasLabels reports whether labels has every label of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// formatLabels renders labels sorted, for messages.
func formatLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, labels[k])
	}
	b.WriteByte('}')
	return b.String()
}

// describeAlerts renders alerts for failure messages.
func describeAlerts(alerts []promAlert) string {
	if len(alerts) == 0 {
		return "no alert"
	}
	parts := make([]string, len(alerts))
	for i, a := range alerts {
		parts[i] = a.State + " " + formatLabels(a.Labels)
	}
	return strings.Join(parts, "; ")
}

// notification is one alert of a webhook notification from Alertmanager.
type notification struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	received    time.Time
}

// webhook is the receiver Alertmanager notifies: it records every alert
// of every notification.
type webhook struct {
	srv *httptest.Server

	mu       sync.Mutex
	received []notification
	problems []string // notifications that did not decode
}

// newWebhook starts the receiver on loopback; it is closed at the end of the
// test.
func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.srv = httptest.NewServer(w) // listens on 127.0.0.1
	t.Cleanup(w.srv.Close)
	return w
}

// URL is where Alertmanager posts.
func (w *webhook) URL() string { return w.srv.URL + "/alerts" }

func (w *webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var msg struct {
		Version string         `json:"version"`
		Alerts  []notification `json:"alerts"`
	}
	err := json.NewDecoder(r.Body).Decode(&msg)
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || r.Method != http.MethodPost || r.URL.Path != "/alerts" || msg.Version != "4" {
		w.problems = append(w.problems, fmt.Sprintf("%s %s version %q: %v", r.Method, r.URL.Path, msg.Version, err))
		http.Error(rw, "bad notification", http.StatusBadRequest)
		return
	}
	for _, a := range msg.Alerts {
		a.received = now
		w.received = append(w.received, a)
	}
}

// find returns the received alerts with status and every label of want.
func (w *webhook) find(status string, want map[string]string) []notification {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []notification
	for _, a := range w.received {
		if a.Status == status && hasLabels(a.Labels, want) {
			out = append(out, a)
		}
	}
	return out
}

// summary describes what arrived, for failure messages.
func (w *webhook) summary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.received) == 0 && len(w.problems) == 0 {
		return "nothing arrived at the webhook"
	}
	var parts []string
	for _, a := range w.received {
		parts = append(parts, a.Status+" "+formatLabels(a.Labels))
	}
	parts = append(parts, w.problems...)
	return strings.Join(parts, "; ")
}

// badNotifications returns the notifications that did not decode.
func (w *webhook) badNotifications() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.problems...)
}
