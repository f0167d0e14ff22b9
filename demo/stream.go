package demo

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// StreamProjects map the demo's deployments (subdomains) to its projects,
// as --stream.project does.
var StreamProjects = map[string]string{"acme": Projects[0].ID, "acme-dev": Projects[1].ID}

// Demo stream's bucket, prefix and static credentials (the fake accepts
// any; none is a secret).
const (
	StreamBucket    = "demo-events"
	StreamPrefix    = "mintlify/"
	StreamAccessKey = "DEMOACCESSKEY"
	StreamSecretKey = "demo-not-a-secret"
	// StreamEvery is how often the demo's writer adds an object.
	StreamEvery = 3 * time.Second
)

// Stream is the demo's event stream: an in-process S3 fake that a writer
// fills with synthetic events, half an hour of them at start and a new
// object every StreamEvery, with a few duplicates and bad lines.
type Stream struct {
	*mintlifytest.S3
	cancel context.CancelFunc
	done   chan struct{}
}

// StartStream starts the S3 fake and its writer; Close stops both.
func StartStream(now func() time.Time) *Stream {
	s3 := mintlifytest.NewS3(StreamBucket)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Stream{S3: s3, cancel: cancel, done: make(chan struct{})}
	w := mintlifytest.NewStreamWriter(s3, StreamPrefix, 1)
	subs := []string{"acme", "acme-dev"}
	// Half an hour of history, with what goes wrong in real streams.
	_ = w.Write(ctx, mintlifytest.StreamOptions{Events: 600, Subdomains: subs, Paths: 40, Start: now().Add(-30 * time.Minute),
		Every: 3 * time.Second, PerObject: 60, Faults: mintlifytest.StreamFaults{Duplicates: 3, Malformed: 1, Gzip: true, Late: true}}) // the fake refuses nothing
	go func() {
		defer close(s.done)
		t := time.NewTicker(StreamEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = w.Write(ctx, mintlifytest.StreamOptions{Events: 12, Subdomains: subs, Paths: 40, Start: now().Add(-StreamEvery),
					Every: StreamEvery / 12, PerObject: 12})
			}
		}
	}()
	return s
}

// Close stops the writer and the S3 fake.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
	s.S3.Close()
}
