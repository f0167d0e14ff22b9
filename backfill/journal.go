package backfill

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

const (
	journalMagic   = "mintlify_exporter backfill journal"
	journalVersion = 1
)

// JournalPath is the journal kept beside output.
func JournalPath(output string) string { return output + ".journal" }

// header is the journal's first line: its kind and the output's arguments.
type header struct {
	Journal string   `json:"journal"`
	Version int      `json:"version"`
	Args    []string `json:"args"`
}

// entry is one finished fetch: one day, source and project.
type entry struct {
	Day     string `json:"day"`
	Source  string `json:"source"`
	Project string `json:"project"`
	// Requests is what the fetch cost; At is when it ended (both restore
	// the request ledger on resume).
	Requests int       `json:"requests"`
	At       time.Time `json:"at"`
	Families []family  `json:"families"`
}

type family struct {
	Name   string   `json:"name"`
	Help   string   `json:"help"`
	Labels []string `json:"labels"`
	Series []series `json:"series"`
}

// series is one sample: the family's label values and the value as written.
type series struct {
	L []string `json:"l"`
	V string   `json:"v"`
}

// key identifies a fetch: day, source, project; a remote-write journal's
// sent lines list those whose samples the receiver accepted.
type key [3]string

func (e *entry) key() key { return key{e.Day, e.Source, e.Project} }

// stamp is the Unix time of every sample of the entry's day: its last
// second. stamp and value read what valid or newEntry vouched for.
func (e *entry) stamp() int64 {
	d, _ := client.ParseDate(e.Day)
	return d.AddDays(1).Time().Unix() - 1
}

func (s series) value() float64 {
	v, _ := strconv.ParseFloat(s.V, 64)
	return v
}

// journal is what a journal file holds and, once open, the file.
type journal struct {
	entries []*entry
	// fetched are the keys of entries read from the file; sent those a
	// remote-write backfill sent (always a subset).
	fetched, sent map[key]bool
	// validLen is the length of its complete lines.
	validLen int64
	path     string
	f        *os.File
}

// parseJournal reads data, the journal at path, made with args; a last line
// torn by a crash is dropped (openJournal truncates it).
func parseJournal(path string, data []byte, args []string) (jd journal, err error) {
	fix := "remove it, or start over with --force"
	jd.fetched, jd.sent = map[key]bool{}, map[key]bool{}
	for i, line := range slices.Collect(bytes.Lines(data)) {
		if line[len(line)-1] != '\n' {
			break // torn last line: the fetch it recorded did not finish
		}
		switch {
		case i == 0:
			var h header
			if err := json.Unmarshal(line, &h); err != nil || h.Journal != journalMagic {
				return journal{}, fmt.Errorf("%s is not a backfill journal: %s", path, fix)
			}
			if h.Version != journalVersion {
				return journal{}, fmt.Errorf("%s is a journal of format %d, this program writes %d: %s", path, h.Version, journalVersion, fix)
			}
			if !slices.Equal(h.Args, args) {
				return journal{}, fmt.Errorf("%s was made with other arguments (%s); now: %s. Resume with the same arguments, or start over with --force",
					path, strings.Join(h.Args, " "), strings.Join(args, " "))
			}
		case bytes.HasPrefix(line, []byte(`{"sent":`)):
			var sl struct{ Sent []key }
			if err := json.Unmarshal(line, &sl); err != nil {
				return journal{}, fmt.Errorf("%s: line %d is damaged: %s", path, i+1, fix)
			}
			for _, k := range sl.Sent {
				if !jd.fetched[k] {
					return journal{}, fmt.Errorf("%s: line %d is damaged (it marks as sent a fetch the journal lacks): %s", path, i+1, fix)
				}
				jd.sent[k] = true
			}
		default:
			e := &entry{}
			if err := json.Unmarshal(line, e); err != nil || !e.valid() {
				return journal{}, fmt.Errorf("%s: line %d is damaged: %s", path, i+1, fix)
			}
			jd.entries = append(jd.entries, e)
			jd.fetched[e.key()] = true
		}
		jd.validLen += int64(len(line))
	}
	return jd, nil // no line: crashed before the header, as good as no journal
}

// valid checks what the output writer relies on.
func (e *entry) valid() bool {
	if _, err := client.ParseDate(e.Day); err != nil || e.Source == "" || e.Project == "" {
		return false
	}
	for _, f := range e.Families {
		names := append(slices.Clip(f.Labels), f.Name)
		if slices.ContainsFunc(names, func(n string) bool { return !model.LegacyValidation.IsValidMetricName(n) }) ||
			slices.ContainsFunc(f.Series, func(s series) bool { return len(s.L) != len(f.Labels) || !validValue(s.V) }) {
			return false
		}
	}
	return true
}

// openJournal continues prior (read on resume) or starts a journal for args.
func openJournal(path string, args []string, prior journal) (j *journal, err error) {
	j = &prior
	j.path = path
	if prior.validLen > 0 {
		if j.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return nil, fmt.Errorf("opening the journal: %w", err)
		}
		if err := j.f.Truncate(prior.validLen); err != nil { // drop a torn last line
			j.f.Close()
			return nil, fmt.Errorf("repairing the journal %s: %w", path, err)
		}
		return j, nil
	}
	j.sent = map[key]bool{} // no complete line: nothing was sent
	// 0600: the journal records the arguments of the run.
	if j.f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
		return nil, fmt.Errorf("creating the journal: %w", err)
	}
	if err := j.f.Chmod(0o600); err != nil { // a file truncated keeps its mode
		j.f.Close()
		return nil, fmt.Errorf("creating the journal: %w", err)
	}
	if err := j.writeJSON(header{Journal: journalMagic, Version: journalVersion, Args: args}); err != nil {
		j.f.Close()
		return nil, err
	}
	return j, nil
}

// writeJSON appends v as one line and makes it durable.
func (j *journal) writeJSON(v any) error {
	line, err := json.Marshal(v)
	if err == nil {
		_, err = j.f.Write(append(line, '\n'))
	}
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.path, err)
	}
	return nil
}

// unsent returns the unsent entries by day, source rank and project.
func (j *journal) unsent(sources []string) []*entry {
	out := slices.DeleteFunc(slices.Clone(j.entries), func(e *entry) bool { return j.sent[e.key()] })
	slices.SortStableFunc(out, func(a, b *entry) int {
		return cmp.Or(strings.Compare(a.Day, b.Day), cmp.Compare(rank(sources, a.Source), rank(sources, b.Source)),
			strings.Compare(a.Project, b.Project))
	})
	return out
}

// rank is the position of source in sources, or after them all.
func rank(sources []string, source string) int {
	if i := slices.Index(sources, source); i >= 0 {
		return i
	}
	return len(sources)
}
