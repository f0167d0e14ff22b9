package statefile

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
)

// TestSaverWritesStreamWithEngine: one save writes the engine's state and
// the stream's snapshot together; a failing snapshot keeps the previous
// one; a Saver without a stream part (an exporter started without the
// stream) writes the section it was given, read at start, instead of
// erasing the checkpoint.
func TestSaverWritesStreamWithEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	snap := json.RawMessage(`{"checkpoint":"a"}`)
	var snapErr error
	s := NewPartsSaver(path, Parts{
		Engine: func() engine.State { return engine.State{Ledger: []time.Time{t0}} },
		Stream: func() (json.RawMessage, error) { return snap, snapErr },
	}, nil)
	s.Save()
	f, err := Read(path)
	if err != nil || len(f.Ledger) != 1 || string(f.Stream) != `{"checkpoint":"a"}` {
		t.Fatalf("saved ledger %v stream %s (err %v), want one ledger entry and the stream's snapshot", f.Ledger, f.Stream, err)
	}
	snap, snapErr = nil, errors.New("boom")
	s.Save()
	if f, err = Read(path); err != nil || string(f.Stream) != `{"checkpoint":"a"}` {
		t.Fatalf("after a failed snapshot the file holds stream %s (err %v), want the previous snapshot kept", f.Stream, err)
	}
	engineOnly := NewPartsSaver(path, Parts{Engine: func() engine.State { return engine.State{Ledger: []time.Time{t0, t0.Add(time.Minute)}} }, Kept: f.Stream}, nil)
	engineOnly.Save()
	if f, err = Read(path); err != nil || len(f.Ledger) != 2 || string(f.Stream) != `{"checkpoint":"a"}` {
		t.Fatalf("an engine-only save left ledger %v stream %s (err %v), want the new ledger and the stream section kept", f.Ledger, f.Stream, err)
	}
	got := LoadFile(path, log.NewNopLogger())
	if got == nil || string(got.Stream) != `{"checkpoint":"a"}` || len(got.Ledger) != 2 {
		t.Fatalf("LoadFile = %+v, want both parts", got)
	}
}

// TestSaverStreamOnly: with no engine (a stream-only exporter) the file
// still holds the stream's snapshot and reads back.
func TestSaverStreamOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s := NewPartsSaver(path, Parts{Stream: func() (json.RawMessage, error) { return json.RawMessage(`{"n":1}`), nil }}, nil)
	s.Changed()
	s.Close()
	f := LoadFile(path, log.NewNopLogger())
	if f == nil || string(f.Stream) != `{"n":1}` || len(f.Units) != 0 {
		t.Fatalf("LoadFile = %+v, want the stream section alone", f)
	}
}
