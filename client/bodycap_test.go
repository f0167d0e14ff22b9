package client_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// TestBodyCapPerEndpoint: an answer larger than its endpoint can sanely
// be is refused, announced (Content-Length) or not (a gzip bomb, undone
// by the transport).
func TestBodyCapPerEndpoint(t *testing.T) {
	big := bytes.Repeat([]byte{' '}, int(client.EndpointVisitors.MaxBody())+1)
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write(bytes.Repeat([]byte{' '}, int(client.EndpointGetJob.MaxBody())+1))
	zw.Close()
	h := jobHarness(t, nil)
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointVisitors, Offset: mintlifytest.AnyOffset, BodyBytes: big})
	h.srv.AddFault(mintlifytest.Fault{Endpoint: mintlifytest.EndpointGetJob, BodyBytes: zbuf.Bytes(), ContentEncoding: "gzip"})
	_, err := h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Limit: 5})
	if !errors.Is(err, client.ErrBodyTooLarge) {
		t.Errorf("a visitors page of %d bytes: %v, want ErrBodyTooLarge", len(big), err)
	}
	if _, err := h.c.GetJob(context.Background(), testProject, "job-1"); !errors.Is(err, client.ErrBodyTooLarge) {
		t.Errorf("a job that decompresses to %d bytes: %v, want ErrBodyTooLarge", client.EndpointGetJob.MaxBody()+1, err)
	}
	for _, e := range client.Endpoints {
		if m := e.MaxBody(); m < 1<<20 || m > client.DefaultMaxBodyBytes {
			t.Errorf("%s: cap %d outside 1 MiB..DefaultMaxBodyBytes", e, m)
		}
	}
}
