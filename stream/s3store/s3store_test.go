package s3store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
	"github.com/mintlify-exporter/mintlify_exporter/stream/s3store"
)

// newStore is a Store of the fake's bucket, with static credentials and
// region us-east-1 (the AWS chain is not read for them).
func newStore(t *testing.T, fake *mintlifytest.S3, bucket string) *s3store.Store {
	t.Helper()
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	st, err := s3store.New(context.Background(), s3store.Options{Bucket: bucket, Region: "us-east-1", Endpoint: fake.URL(),
		AccessKeyID: "AKIDTEST", SecretAccessKey: "not-a-secret"})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestListPagesAndOpens: List reads past the 1,000 keys of one page with
// the continuation token, starts after a key, stops at max, keeps to the
// prefix; Open streams a body with its Content-Encoding.
func TestListPagesAndOpens(t *testing.T) {
	fake := mintlifytest.NewS3("events")
	defer fake.Close()
	for i := range 2500 {
		fake.Put(fmt.Sprintf("p/%05d.jsonl", i), []byte(fmt.Sprintf("line %d\n", i)), "")
	}
	fake.Put("other/x.jsonl", []byte("x"), "")
	fake.Put("p/zz.jsonl.gz", []byte{0x1f, 0x8b}, "gzip")
	st := newStore(t, fake, "events")
	ctx := context.Background()

	all, err := st.List(ctx, "p/", "", 10000)
	if err != nil || len(all) != 2501 || all[0].Key != "p/00000.jsonl" || all[2499].Key != "p/02499.jsonl" || all[2500].Key != "p/zz.jsonl.gz" {
		t.Fatalf("List(p/) = %d objects (err %v), want 2501 in key order", len(all), err)
	}
	if all[0].Size != int64(len("line 0\n")) || all[0].LastModified.IsZero() {
		t.Errorf("first object %+v: want its size and last-modified time", all[0])
	}
	some, err := st.List(ctx, "p/", "p/00998.jsonl", 1500)
	if err != nil || len(some) != 1500 || some[0].Key != "p/00999.jsonl" || some[1499].Key != "p/02498.jsonl" {
		t.Fatalf("List after p/00998 max 1500 = %d objects (err %v) from %v, want 1500 from p/00999.jsonl", len(some), err, first(some))
	}
	body, meta, err := st.Open(ctx, "p/00042.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(body)
	body.Close()
	if string(b) != "line 42\n" || meta.LastModified.IsZero() {
		t.Errorf("Open = %q, %+v; want the body and its time", b, meta)
	}
	body, meta, err = st.Open(ctx, "p/zz.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(body)
	body.Close()
	if meta.ContentEncoding != "gzip" || len(b) != 2 {
		t.Errorf("a gzip object opened as %d bytes with encoding %q, want its 2 stored bytes and gzip", len(b), meta.ContentEncoding)
	}
}

func first(o []stream.ObjectInfo) string {
	if len(o) == 0 {
		return "nothing"
	}
	return o[0].Key
}

// TestErrorsMapOntoSentinels: each failure of S3 is one of the stream's
// sentinels, one line that names the flag to fix, and holds no secret.
func TestErrorsMapOntoSentinels(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		setup func(*mintlifytest.S3)
		open  bool
		want  error
		flag  string
	}{
		{"wrong access key", func(s *mintlifytest.S3) { s.SetAccessKey("AKIDOTHER") }, false, stream.ErrAccessDenied, "--stream.s3.bucket=events"},
		{"wrong region", func(s *mintlifytest.S3) { s.SetRegion("eu-west-1") }, false, stream.ErrWrongRegion, "--stream.s3.region=eu-west-1"},
		{"throttled", func(s *mintlifytest.S3) { s.Throttle(10) }, false, stream.ErrThrottled, "--stream.s3.bucket=events"},
		{"vanished", func(s *mintlifytest.S3) {}, true, stream.ErrNotFound, `object "p/gone.jsonl"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == stream.ErrThrottled && testing.Short() {
				t.Skip("waits for the SDK's real retry backoff (a second or two): skipped under -short")
			}
			fake := mintlifytest.NewS3("events")
			defer fake.Close()
			fake.Put("p/a.jsonl", []byte("a\n"), "")
			tt.setup(fake)
			st := newStore(t, fake, "events")
			var err error
			if tt.open {
				_, _, err = st.Open(ctx, "p/gone.jsonl")
			} else {
				_, err = st.List(ctx, "p/", "", 10)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.flag) || strings.Contains(msg, "\n") || strings.Contains(msg, "not-a-secret") {
				t.Errorf("err = %q, want one line naming %s and no secret", msg, tt.flag)
			}
		})
	}
	t.Run("no bucket", func(t *testing.T) {
		fake := mintlifytest.NewS3("events")
		defer fake.Close()
		st := newStore(t, fake, "absent")
		_, err := st.List(ctx, "", "", 10)
		if !errors.Is(err, stream.ErrNoBucket) || !strings.Contains(err.Error(), "--stream.s3.bucket=absent") {
			t.Fatalf("err = %v, want ErrNoBucket naming --stream.s3.bucket=absent", err)
		}
	})
	t.Run("throttling retried within bounds", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for the SDK's real retry backoff (a second or two): skipped under -short")
		}
		fake := mintlifytest.NewS3("events")
		defer fake.Close()
		fake.Put("p/a.jsonl", []byte("a\n"), "")
		fake.Throttle(2) // two 503s, then the third attempt succeeds
		st := newStore(t, fake, "events")
		got, err := st.List(ctx, "p/", "", 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("List after 2 throttled answers = %v, %v; want the SDK's bounded retries to get through", got, err)
		}
	})
}

// TestNoRegion: without --stream.s3.region and without a region in the
// AWS chain, AWS is refused at start, naming the flag.
func TestNoRegion(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_PROFILE", "")
	_, err := s3store.New(context.Background(), s3store.Options{Bucket: "events"})
	if err == nil || !strings.Contains(err.Error(), "--stream.s3.region") {
		t.Fatalf("err = %v, want a refusal naming --stream.s3.region", err)
	}
}
