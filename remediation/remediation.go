// Package remediation is an Alertmanager webhook receiver that turns the
// alerts its rules match into agent jobs, and follow-up messages to them,
// within caps, cooldowns and a ledger that survives restarts (see
// docs/remediation.md).
package remediation

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/internal/errstate"
	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
	"github.com/mintlify-exporter/mintlify_exporter/jobs"
)

// Path is where the webhook is served.
const Path = "/webhook/alertmanager"

// MaxPayloadBytes bounds a webhook request's body.
const MaxPayloadBytes = 4 << 20

// Bounds of the payloads read at once: a 4 MiB payload takes about 25 MiB
// decoded, and 60 strangers posting to a dry run took 1.5 GiB before
// payloads waited for a slot. A payload waits at most MaxPayloadWait (within
// the server's 30 s ReadTimeout), then is answered 503 and sent again.
const (
	MaxPayloadsAtOnce = 2
	MaxPayloadWait    = 10 * time.Second
)

// Outcomes of an alert, the outcome label of mintlify_remediation_alerts_total.
const (
	OutcomeCreated  = "created"
	OutcomeMessaged = "messaged"
	OutcomeDryRun   = "dry_run"
	OutcomeCooldown = "cooldown"
	OutcomeActive   = "active"
	OutcomeCapped   = "capped"
	OutcomeResolved = "resolved"
	OutcomeNoRule   = "no_rule"
	OutcomeError    = "error"
)

// Options configure a Remediator.
type Options struct {
	ConfigPath string         // re-read when it changes
	Projects   []string       // a rule's project must be one of these
	Token      string         // the bearer token required ("" for none)
	BasicAuth  bool           // --web.config.file authenticates every request
	LedgerPath string         // "" keeps the ledger in memory: only for a dry run
	API        *client.Client // creates the jobs and sends the messages
	Jobs       *jobs.Watcher  // follows the jobs created
	Logger     log.Logger
	Now        func() time.Time // time.Now when nil
	Timeout    time.Duration    // of each API request; 30s when zero
}

// Remediator is the webhook: an http.Handler and a prometheus.Collector.
type Remediator struct {
	opts   Options
	logger log.Logger

	slots chan struct{} // MaxPayloadsAtOnce payloads read and handled at once

	// payload handles payloads one at a time, held across the API calls:
	// the ledger changes only under it.
	payload      sync.Mutex
	dryRunLogged int // in the payload being handled

	// mu guards everything below; never held across a network call, so the
	// landing page never waits on the API.
	mu   sync.Mutex
	cfg  *Config
	file *filewatch.File
	bad  errstate.State // the last problem of the file, logged once
	// missingLogged holds every MissingLabelError logged, so each is logged once.
	missingLogged map[MissingLabelError]bool
	ledger        *ledger
	alerts        *prometheus.CounterVec
	created       *prometheus.CounterVec
	messages      *prometheus.CounterVec
}

// CheckAuth reports why cfg cannot run with this authentication and a ledger on disk (persistent) or in memory.
func CheckAuth(cfg *Config, token string, basicAuth, persistent bool) error {
	switch {
	case token != "" && basicAuth:
		return errors.New("--remediation.token-file and basic_auth_users in --web.config.file cannot be used together: Alertmanager sends one Authorization header, which basic auth takes, so the webhook would refuse every call; keep one of them")
	case cfg.DryRun:
		return nil
	case token == "" && !basicAuth:
		return errors.New("the webhook acts on the API with a write-scoped key, so it needs authentication: set --remediation.token-file (a bearer token Alertmanager sends) or basic_auth_users in --web.config.file, or say dry_run: true")
	case !persistent:
		return errors.New("the webhook needs --cache.file to remember the jobs it created across restarts (or say dry_run: true)")
	}
	return nil
}

// LoadConfig reads and parses the configuration file at path.
func LoadConfig(path string) (*Config, error) {
	data, _, err := filewatch.New(path).Read(MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data)
}

// New reads the configuration file and the ledger and returns the webhook.
func New(opts Options) (*Remediator, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Timeout = cmp.Or(opts.Timeout, 30*time.Second)
	r := &Remediator{opts: opts, logger: log.With(cmp.Or(opts.Logger, log.NewNopLogger()), "component", "remediation"), file: filewatch.New(opts.ConfigPath),
		slots: make(chan struct{}, MaxPayloadsAtOnce), missingLogged: map[MissingLabelError]bool{}}
	var err error
	if r.cfg, err = r.readConfig(); err != nil {
		return nil, err
	}
	if r.ledger, err = openLedger(opts.LedgerPath, opts.Now(), r.logger); err != nil {
		return nil, err
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	r.alerts = counter("mintlify_remediation_alerts_total", "Alerts received by the remediation webhook, by matching rule and outcome.", "rule", "outcome")
	r.created = counter("mintlify_remediation_jobs_created_total", "Agent jobs the remediation webhook created, by project and rule.", "project", "rule")
	r.messages = counter("mintlify_remediation_messages_sent_total", "Follow-up messages the remediation webhook sent to its jobs, by project and rule.", "project", "rule")
	r.initSeries(r.cfg)
	// Jobs created before a restart are watched again.
	for _, e := range r.ledger.entries {
		if e.JobID != "" {
			if err := opts.Jobs.Watch(e.Project, e.JobID); err != nil {
				level.Warn(r.logger).Log("msg", "cannot watch a job of the remediation ledger", "key", e.Key, "job_id", e.JobID, "err", err)
			}
		}
	}
	mode := "acting"
	if r.cfg.DryRun {
		mode = "dry run: nothing is sent"
	}
	level.Info(r.logger).Log("msg", "remediation webhook ready", "path", Path, "rules", len(r.cfg.Rules), "mode", mode,
		"keys_in_ledger", len(r.ledger.entries), "max_per_project_per_hour", r.cfg.MaxPerProjectPerHour, "max_per_day", r.cfg.MaxPerDay)
	return r, nil
}

// readConfig reads the file, marks its version and checks it (CheckAuth).
func (r *Remediator) readConfig() (*Config, error) {
	data, info, err := r.file.Read(MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	r.file.Mark(info)
	cfg, err := ParseConfig(data)
	if err == nil {
		err = CheckAuth(cfg, r.opts.Token, r.opts.BasicAuth, r.opts.LedgerPath != "")
	}
	return cfg, err
}

// reload re-reads a changed configuration; a bad version is logged once
// and the last good one stays. The caller holds r.mu.
func (r *Remediator) reload() {
	if changed, err := r.file.Changed(); err == nil && !changed {
		return
	}
	cfg, err := r.readConfig() // a file Changed cannot stat fails to be read alike
	if err != nil {
		if r.bad.Failed(err.Error()) {
			level.Warn(r.logger).Log("msg", "cannot use the changed remediation configuration; keeping the last good one", "file", r.opts.ConfigPath, "err", err)
		}
		return
	}
	r.bad.Recovered()
	r.cfg = cfg
	r.initSeries(cfg)
	level.Info(r.logger).Log("msg", "remediation configuration re-read", "file", r.opts.ConfigPath, "rules", len(cfg.Rules), "dry_run", cfg.DryRun)
}

// initSeries makes every rule's series present at 0.
func (r *Remediator) initSeries(cfg *Config) {
	r.alerts.WithLabelValues("", OutcomeNoRule)
	for _, rule := range cfg.Rules {
		for _, o := range []string{OutcomeCreated, OutcomeMessaged, OutcomeDryRun, OutcomeCooldown, OutcomeActive, OutcomeCapped, OutcomeResolved, OutcomeError} {
			r.alerts.WithLabelValues(rule.Name, o) // no_rule has no rule
		}
		for _, p := range r.opts.Projects {
			r.created.WithLabelValues(p, rule.Name)
			r.messages.WithLabelValues(p, rule.Name)
		}
	}
}

// Describe implements prometheus.Collector.
func (r *Remediator) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range []*prometheus.CounterVec{r.alerts, r.created, r.messages} {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (r *Remediator) Collect(ch chan<- prometheus.Metric) {
	for _, c := range []*prometheus.CounterVec{r.alerts, r.created, r.messages} {
		c.Collect(ch)
	}
}

// Alert is one alert of Alertmanager's webhook payload, version 4 (the
// fields used; walkPayload reads the payload's version and alerts).
type Alert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// AlertOutcome is what happened to one alert. The webhook answers
// {"outcomes": [...]}, one per alert, in order.
type AlertOutcome struct {
	Rule    string `json:"rule,omitempty"`
	Key     string `json:"key,omitempty"`
	Outcome string `json:"outcome"`
	JobID   string `json:"jobId,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// ServeHTTP answers POST /webhook/alertmanager. Nothing of the body is
// read before the request is authenticated, its size checked and a slot
// taken.
func (r *Remediator) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if code, msg := r.serve(w, req); code != http.StatusOK {
		http.Error(w, msg, code)
	}
}

var tooLarge = fmt.Sprintf("payload larger than %d bytes", MaxPayloadBytes)

// serve answers req, or returns the HTTP status and message of its refusal.
func (r *Remediator) serve(w http.ResponseWriter, req *http.Request) (int, string) {
	switch {
	case req.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		return http.StatusMethodNotAllowed, "the remediation webhook takes POST requests from Alertmanager"
	// The bearer token, compared in constant time; without one, basic auth
	// (checked before the request got here) or a dry run lets it in.
	case r.opts.Token != "" && subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), []byte("Bearer "+r.opts.Token)) != 1:
		w.Header().Set("WWW-Authenticate", `Bearer realm="mintlify_exporter remediation"`)
		return http.StatusUnauthorized, "unauthorized: send the bearer token of --remediation.token-file"
	case req.ContentLength > MaxPayloadBytes:
		return http.StatusRequestEntityTooLarge, tooLarge
	case !r.acquire(req.Context()):
		w.Header().Set("Retry-After", "10")
		return http.StatusServiceUnavailable, "too many payloads at once: send it again later"
	}
	defer func() { <-r.slots }()
	var buf bytes.Buffer
	if req.ContentLength > 0 { // read into one buffer of the size announced, not grown by doubling
		buf.Grow(int(req.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, MaxPayloadBytes)); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return http.StatusRequestEntityTooLarge, tooLarge
		}
		return http.StatusBadRequest, "cannot read the payload: " + oneLine(err.Error())
	}
	if version, err := walkPayload(buf.Bytes(), func(int, *Alert) {}); err != nil {
		return http.StatusBadRequest, "not an Alertmanager webhook payload (version 4): " + oneLine(err.Error())
	} else if version != "4" {
		return http.StatusBadRequest, fmt.Sprintf("not an Alertmanager webhook payload (version 4): version %q, want \"4\"", version)
	}
	answer := r.handlePayload(req.Context(), buf.Bytes())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer)
	return http.StatusOK, ""
}

func (r *Remediator) acquire(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, MaxPayloadWait)
	defer cancel()
	select {
	case r.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// walkPayload checks each alert as it is decoded and calls fn with it, so
// that many alerts cost their bytes, not their maps (fn must not keep a),
// and returns the payload's version.
func walkPayload(body []byte, fn func(i int, a *Alert)) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := expectDelim(dec, '{'); err != nil {
		return "", err
	}
	var version string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		name, _ := tok.(string)
		if seen[name] && (name == "version" || name == "alerts") {
			return "", fmt.Errorf("%q given twice", name)
		}
		seen[name] = true
		switch name {
		case "version":
			err = dec.Decode(&version)
		case "alerts":
			err = walkAlerts(dec, fn)
		default:
			err = dec.Decode(new(json.RawMessage))
		}
		if err != nil {
			return "", err
		}
	}
	return version, expectDelim(dec, '}') // the caller reads version only without an error
}

func walkAlerts(dec *json.Decoder, fn func(i int, a *Alert)) error {
	tok, err := dec.Token()
	switch d, _ := tok.(json.Delim); {
	case err != nil:
		return fmt.Errorf("alerts: %w", err)
	case tok == nil: // null: no alerts
		return nil
	case d != '[':
		return fmt.Errorf("alerts: want an array, got %v", tok)
	}
	for i := 0; dec.More(); i++ {
		var a Alert
		switch err := dec.Decode(&a); {
		case err != nil:
			return fmt.Errorf("alerts[%d]: %w", i, err)
		case a.Status != "firing" && a.Status != "resolved":
			return fmt.Errorf("alerts[%d].status %q, want firing or resolved", i, a.Status)
		case len(a.Labels) == 0:
			return fmt.Errorf("alerts[%d] has no labels", i)
		}
		fn(i, &a)
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if got, _ := tok.(json.Delim); err == nil && got != d {
		err = fmt.Errorf("want %q, got %v", d, tok)
	}
	return err
}

// handlePayload acts on every alert of a checked payload and returns the
// answer, {"outcomes": [...]}.
func (r *Remediator) handlePayload(ctx context.Context, body []byte) []byte {
	r.payload.Lock()
	defer r.payload.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reload()
	var out bytes.Buffer // written as they come: many alerts cost their bytes, not a slice of outcomes
	out.WriteString(`{"outcomes":[`)
	r.dryRunLogged = 0
	capped, firstCapped := map[string]int{}, map[string]AlertOutcome{} // alerts capped, by rule
	_, _ = walkPayload(body, func(i int, a *Alert) {
		o := r.handle(ctx, *a)
		r.alerts.WithLabelValues(o.Rule, o.Outcome).Inc()
		if o.Outcome == OutcomeCapped {
			if capped[o.Rule]++; capped[o.Rule] == 1 {
				firstCapped[o.Rule] = o
			}
		}
		if i > 0 {
			out.WriteByte(',')
		}
		b, _ := json.Marshal(o)
		out.Write(b)
	})
	// One line per rule whose alerts were capped, and the dry-run lines left out.
	for _, rule := range slices.Sorted(maps.Keys(capped)) {
		level.Warn(r.logger).Log("msg", "remediation capped", "rule", rule, "alerts", capped[rule], "first_key", firstCapped[rule].Key, "reason", firstCapped[rule].Reason)
	}
	if n := r.dryRunLogged - maxDryRunLines; n > 0 {
		level.Info(r.logger).Log("msg", "dry run: more alerts of the notification would have acted; not logged one by one", "alerts", n)
	}
	out.WriteString("]}\n")
	return out.Bytes()
}

// maxDryRunLines bounds the dry-run lines of a payload: anyone may post
// to a dry run a payload of a hundred thousand alerts.
const maxDryRunLines = 10

// handle decides what to do with one alert and does it (a dry run logs the
// first maxDryRunLines of a payload). The caller holds r.payload and r.mu.
func (r *Remediator) handle(ctx context.Context, a Alert) AlertOutcome {
	rule := r.cfg.match(a.Labels)
	switch {
	case rule == nil:
		return AlertOutcome{Outcome: OutcomeNoRule}
	case a.Status == "resolved":
		return AlertOutcome{Rule: rule.Name, Outcome: OutcomeResolved}
	}
	out := AlertOutcome{Rule: rule.Name}
	d, err := r.decide(rule, a, &out)
	switch {
	case err != nil:
		return r.failed(out, err, "remediation failed", "rule", rule.Name, "key", out.Key)
	case out.Outcome != "": // active, cooldown, or capped (logged once per payload: handlePayload)
		return out
	case !r.cfg.DryRun:
		return r.send(ctx, d, out)
	}
	what := "create a job"
	if d.message {
		what = "send a follow-up message to job " + d.entry.JobID
	}
	if r.dryRunLogged++; r.dryRunLogged <= maxDryRunLines {
		level.Info(r.logger).Log("msg", "dry run: would "+what, "rule", out.Rule, "project", d.project, "key", out.Key, "prompt", d.prompt)
	}
	out.Outcome = OutcomeDryRun
	return out
}

// decision is what an alert that matched a rule would do.
type decision struct {
	project, prompt, values string
	entry                   *Entry // the key's ledger entry; nil before its first job
	message                 bool   // a follow-up to entry's job rather than a new job
	now                     time.Time
}

// decide renders the alert's project, key and prompt; it sets out.Outcome
// when the key's ledger entry, or the project's caps, say to do nothing now.
func (r *Remediator) decide(rule *Rule, a Alert, out *AlertOutcome) (*decision, error) {
	data := rule.data(a)
	project, err := rule.render(rule.project, data, MaxLabelRunes)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(r.opts.Projects, project) {
		return nil, fmt.Errorf("project %q is not one of --mintlify.project-id", project)
	}
	if out.Key, err = rule.render(rule.key, data, 2*MaxLabelRunes); err != nil {
		return nil, err
	}
	d := &decision{project: project, values: fingerprint(a.Annotations), now: r.opts.Now()}
	r.ledger.prune(d.now)
	if e := r.ledger.entries[out.Key]; e != nil {
		d.entry, out.JobID = e, e.JobID
		// Note when its job was first seen ended (the watcher knows no job of id "").
		if status, _, _ := r.opts.Jobs.Lookup(e.Project, e.JobID); e.Ended.IsZero() && status.Terminal() {
			e.Ended = d.now
			r.saveLogged()
		}
	}
	tmpl := rule.prompt
	switch e := d.entry; {
	case e == nil, !e.Ended.IsZero() && !d.now.Before(e.Ended.Add(rule.cooldown)): // a new job
	case !e.Ended.IsZero():
		out.Outcome = OutcomeCooldown
		out.Reason = fmt.Sprintf("the key's last job ended at %s; the cooldown of %s ends at %s", e.Ended.UTC().Format(time.RFC3339), rule.cooldown, e.Ended.Add(rule.cooldown).UTC().Format(time.RFC3339))
	case rule.followUp == nil:
		out.Outcome, out.Reason = OutcomeActive, "the key's job is still active"
	case d.now.Sub(e.lastAction()) < rule.followUpEvery:
		next := e.lastAction().Add(rule.followUpEvery).UTC().Format(time.RFC3339)
		out.Outcome, out.Reason = OutcomeActive, "the key's job is active; the next follow-up may go at "+next
	case e.Values == d.values:
		out.Outcome, out.Reason = OutcomeActive, "the key's job is active and the alert's values have not changed"
	default: // a follow-up to the key's active job
		tmpl, d.message = rule.followUp, true
	}
	if out.Outcome == "" {
		if d.prompt, err = rule.render(tmpl, data, MaxPromptRunes); err == nil {
			out.Outcome, out.Reason = r.capped(d.project, d.now)
		}
	}
	return d, err
}

func (r *Remediator) capped(project string, now time.Time) (outcome, reason string) {
	if n := r.ledger.count(project, now, time.Hour); n >= r.cfg.MaxPerProjectPerHour {
		return OutcomeCapped, fmt.Sprintf("%d jobs and messages for project %s in the last hour (max_per_project_per_hour)", n, project)
	}
	if n := r.ledger.count(project, now, 24*time.Hour); n >= r.cfg.MaxPerDay {
		return OutcomeCapped, fmt.Sprintf("%d jobs and messages for project %s in the last 24 hours (max_per_day)", n, project)
	}
	return "", ""
}

func (r *Remediator) saveLogged() {
	if err := r.ledger.save(); err != nil {
		level.Error(r.logger).Log("msg", "cannot save the remediation ledger", "err", err)
	}
}

// failed returns out as OutcomeError for err, logged as msg with kv. A
// MissingLabelError is logged once per rule, template and label instead:
// every such alert would fail alike.
func (r *Remediator) failed(out AlertOutcome, err error, msg string, kv ...any) AlertOutcome {
	out.Outcome, out.Reason = OutcomeError, err.Error()
	if missing, ok := errors.AsType[*MissingLabelError](err); !ok {
		level.Error(r.logger).Log(append(append([]any{"msg", msg}, kv...), "err", err)...)
	} else if !r.missingLogged[*missing] {
		r.missingLogged[*missing] = true
		level.Error(r.logger).Log("msg", "remediation rule reads a label its alerts lack or have empty: they are not acted on, and counted as outcome error (logged once per rule and label)",
			"rule", missing.Rule, "template", missing.Template, "label", missing.Label)
	}
	return out
}

// send creates the key's job, or sends the rule's follow-up to it
// (d.message), recorded in the ledger before it goes: without a durable
// record a restart could create the job again, and the caps count a
// message sent before a crash.
func (r *Remediator) send(ctx context.Context, d *decision, out AlertOutcome) AlertOutcome {
	rule, project, key, prev := out.Rule, d.project, out.Key, d.entry
	e, prevMessaged := prev, time.Time{}
	if d.message {
		prevMessaged, e.Messaged = e.Messaged, d.now
	} else {
		e = &Entry{Key: key, Rule: rule, Project: project, Created: d.now, Pending: true, Values: d.values}
		r.ledger.entries[key] = e
	}
	r.ledger.actions = append(r.ledger.actions, action{Project: project, At: d.now})
	undo := func(action bool) { // forgets the job or message, and its action
		e.Messaged = prevMessaged
		if prev == nil { // not a nil entry: sorted and Rows read every entry
			delete(r.ledger.entries, key)
		} else {
			r.ledger.entries[key] = prev
		}
		if action {
			r.ledger.actions = r.ledger.actions[:len(r.ledger.actions)-1]
		}
	}
	if err := r.ledger.save(); err != nil {
		undo(true)
		return r.failed(out, err, "remediation failed: nothing sent", "rule", rule, "key", key)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	r.mu.Unlock() // for the API call; r.payload, still held, keeps the ledger as it is
	var job *client.Job
	var err error
	if d.message {
		job, err = r.opts.API.SendMessage(ctx, project, e.JobID, d.prompt)
	} else {
		job, err = r.opts.API.CreateJob(ctx, project, d.prompt)
	}
	r.mu.Lock()
	e.Pending = false
	switch {
	case err == nil && d.message:
		e.Values = d.values
	case err == nil:
		e.JobID = job.ID
	case neverCreated(err): // refused: nothing was delivered (a refused create still counts for the caps)
		undo(d.message)
	}
	// A job whose create failed may exist: no new one before the cooldown.
	// A message answered 404: the job is gone, a new one may be created.
	if err != nil && (!d.message || client.IsNotFound(err)) {
		e.Ended = d.now
	}
	r.saveLogged()
	if err != nil {
		if d.message {
			return r.failed(out, err, "remediation failed: the follow-up was not sent", "rule", rule, "project", project, "key", key, "job_id", e.JobID)
		}
		return r.failed(out, err, "remediation failed: the job was not created", "rule", rule, "project", project, "key", key)
	}
	msg, counter := "agent job created for an alert", r.created
	out.Outcome, out.JobID = OutcomeCreated, e.JobID
	if d.message {
		msg, counter, out.Outcome = "follow-up message sent to an agent job for an alert", r.messages, OutcomeMessaged
	} else if err := r.opts.Jobs.Watch(project, job.ID); err != nil {
		level.Warn(r.logger).Log("msg", "cannot watch the job created", "job_id", job.ID, "err", err)
	}
	counter.WithLabelValues(project, rule).Inc()
	level.Info(r.logger).Log("msg", msg, "rule", rule, "project", project, "key", key, "job_id", e.JobID)
	return out
}

// neverCreated reports whether err certainly left nothing upstream: a 4xx,
// or a request refused before it was sent.
func neverCreated(err error) bool {
	if apiErr, ok := errors.AsType[*client.APIError](err); ok {
		return apiErr.StatusCode >= 400 && apiErr.StatusCode < 500
	}
	return errors.Is(err, client.ErrEmptyPrompt) || errors.Is(err, client.ErrInvalidID)
}

// fingerprint identifies an alert's annotation values (its description
// carries the value that fired).
func fingerprint(annotations map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		fmt.Fprintf(h, "%q=%q\n", k, annotations[k])
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

// Row is one key of the ledger, for the landing page.
type Row struct {
	Entry
	// Status is the job's status as the watcher last read it ("" before),
	// PRLink its pull request ("" when none).
	Status, PRLink string
	LastAction     time.Time // when the key last acted
}

// Rows returns the ledger's keys, for the landing page.
func (r *Remediator) Rows() []Row {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Row
	for _, e := range r.ledger.sorted() {
		status, pr, _ := r.opts.Jobs.Lookup(e.Project, e.JobID) // "", "" before a read
		out = append(out, Row{Entry: *e, Status: string(status), PRLink: pr, LastAction: e.lastAction()})
	}
	return out
}
