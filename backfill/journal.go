package backfill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// journalVersion is the format version in the journal's header line.
const journalVersion = 1

// journalMagic names the journal's kind in its header line.
const journalMagic = "mintlify_exporter backfill journal"

// JournalPath is the journal kept beside output.
func JournalPath(output string) string { return output + ".journal" }

// header is the journal's first line: what the journal is, and the
// arguments that decide the output.
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

// family is one metric family of an entry, with its series.
type family struct {
	Name   string   `json:"name"`
	Help   string   `json:"help"`
	Labels []string `json:"labels"`
	Series []series `json:"series"`
}

// series is one sample: the family's own label values, in order, and the
// value as written in the output.
type series struct {
	L []string `json:"l"`
	V string   `json:"v"`
}

// key identifies a fetch.
type key struct{ day, source, project string }

func (e *entry) key() key { return key{e.Day, e.Source, e.Project} }

// journal is an open journal: the entries read, and the file appended to.
type journal struct {
	path    string
	f       *os.File
	entries []*entry
	done    map[key]bool
}

// errArgsChanged is wrapped when a journal was made with other arguments.
var errArgsChanged = errors.New("made with other arguments")

// readJournal reads the journal at path, if any, checking that it was made
// with args. A last line cut short by a crash is dropped (and truncated
// when open for writing). exists is false when there is no journal.
func readJournal(path string, args []string) (entries []*entry, validLen int64, exists bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, true, fmt.Errorf("reading the journal: %w", err)
	}
	entries, validLen, err = parseJournal(path, data, args)
	return entries, validLen, true, err
}

// parseJournal reads the journal path holds, data, written for args.
func parseJournal(path string, data []byte, args []string) (entries []*entry, validLen int64, err error) {
	fix := "remove it, or start over with --force"
	lines := 0
	for off := 0; off < len(data); {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break // torn last line: the fetch it recorded did not finish
		}
		line := data[off : off+nl]
		lines++
		if lines == 1 {
			var h header
			if err := json.Unmarshal(line, &h); err != nil || h.Journal != journalMagic {
				return nil, 0, fmt.Errorf("%s is not a backfill journal: %s", path, fix)
			}
			if h.Version != journalVersion {
				return nil, 0, fmt.Errorf("%s is a journal of format %d, this program writes %d: %s", path, h.Version, journalVersion, fix)
			}
			if !slices.Equal(h.Args, args) {
				return nil, 0, fmt.Errorf("%s was %w (%s); now: %s. Resume with the same arguments, or start over with --force",
					path, errArgsChanged, strings.Join(h.Args, " "), strings.Join(args, " "))
			}
		} else {
			e := &entry{}
			if err := json.Unmarshal(line, e); err != nil || !e.valid() {
				return nil, 0, fmt.Errorf("%s: line %d is damaged: %s", path, lines, fix)
			}
			entries = append(entries, e)
		}
		off += nl + 1
		validLen = int64(off)
	}
	if lines == 0 {
		// Crashed before the header was written: as good as no journal.
		return nil, 0, nil
	}
	return entries, validLen, nil
}

// valid checks what the output writer relies on.
func (e *entry) valid() bool {
	if _, err := client.ParseDate(e.Day); err != nil || e.Source == "" || e.Project == "" {
		return false
	}
	for _, f := range e.Families {
		if !validName(f.Name) {
			return false
		}
		for _, l := range f.Labels {
			if !validName(l) {
				return false
			}
		}
		for _, s := range f.Series {
			if len(s.L) != len(f.Labels) || !validValue(s.V) {
				return false
			}
		}
	}
	return true
}

// openJournal opens the journal for appending: it reads an existing one
// (made with args) when resume is set, else starts a new one.
func openJournal(path string, args []string, resume bool) (*journal, error) {
	j := &journal{path: path, done: map[key]bool{}}
	var validLen int64
	exists := false
	if resume {
		var err error
		if j.entries, validLen, exists, err = readJournal(path, args); err != nil {
			return nil, err
		}
	}
	if exists && validLen > 0 {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("opening the journal: %w", err)
		}
		if err := f.Truncate(validLen); err != nil { // drop a torn last line
			f.Close()
			return nil, fmt.Errorf("repairing the journal %s: %w", path, err)
		}
		if _, err := f.Seek(validLen, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("opening the journal: %w", err)
		}
		j.f = f
	} else {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("creating the journal: %w", err)
		}
		j.f = f
		line, _ := json.Marshal(header{Journal: journalMagic, Version: journalVersion, Args: args})
		if err := j.writeLine(line); err != nil {
			j.close()
			return nil, err
		}
	}
	for _, e := range j.entries {
		j.done[e.key()] = true
	}
	return j, nil
}

// writeLine appends one line and makes it durable.
func (j *journal) writeLine(line []byte) error {
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.path, err)
	}
	return nil
}

// add records a finished fetch.
func (j *journal) add(e *entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding the journal entry of %s %s %s: %w", e.Day, e.Source, e.Project, err)
	}
	if err := j.writeLine(line); err != nil {
		return err
	}
	j.entries = append(j.entries, e)
	j.done[e.key()] = true
	return nil
}

// close closes the file.
func (j *journal) close() {
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
}

// remove closes and deletes the journal.
func (j *journal) remove() error {
	j.close()
	if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the journal: %w", err)
	}
	return nil
}
