package mintlifytest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest/s3sdk"
)

// sdkClient is an AWS SDK for Go v2 client of the fake, as a reader
// configures one: path-style, static credentials, attempts as given.
func sdkClient(s *mintlifytest.S3, region, accessKey string, attempts int) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider(accessKey, "secret", ""),
		RetryMaxAttempts: attempts,
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(s.URL())
		o.UsePathStyle = true
		o.RetryMaxAttempts = attempts
	})
}

func apiCode(t *testing.T, err error) string {
	t.Helper()
	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("error %v is not an S3 API error", err)
	}
	return api.ErrorCode()
}

func TestS3WithTheSDK(t *testing.T) {
	ctx := context.Background()
	s := mintlifytest.NewS3("events")
	defer s.Close()
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	if err := s3sdk.CreateBucket(ctx, s.URL(), "events", "", "AKID", "secret"); err != nil {
		t.Fatal(err)
	}
	p, err := s3sdk.NewPutter(s.URL(), "events", "", "AKID", "secret")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 0; i < 7; i++ {
		key := fmt.Sprintf("pre/2026030210%02d-x.jsonl", i)
		if err := p.PutObject(ctx, key, []byte(fmt.Sprintf("line %d\n", i)), ""); err != nil {
			t.Fatal(err)
		}
		want = append(want, key)
	}
	if err := p.PutObject(ctx, "pre/20260302101000-z.jsonl", []byte{0x1f, 0x8b, 1, 2}, "gzip"); err != nil {
		t.Fatal(err)
	}
	want = append(want, "pre/20260302101000-z.jsonl")
	s.Put("other/x.jsonl", []byte("not under the prefix"), "")

	c := sdkClient(s, "us-east-1", "AKID", 1)
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("events")}); err != nil {
		t.Fatal(err)
	}
	// Pages of 3 keys, the first after start-after.
	var got []string
	pages := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String("events"), Prefix: aws.String("pre/"),
		StartAfter: aws.String(want[0]), MaxKeys: aws.Int32(3)})
	for n := 0; pages.HasMorePages(); n++ {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			got = append(got, *o.Key)
			if !o.LastModified.Equal(now) || *o.Size == 0 {
				t.Errorf("%s: LastModified %v, Size %d", *o.Key, o.LastModified, *o.Size)
			}
		}
		if n > 5 {
			t.Fatal("the listing does not end")
		}
	}
	if !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("listed %v, want %v", got, want[1:])
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("events"), Key: aws.String("pre/20260302101000-z.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if !bytes.Equal(body, []byte{0x1f, 0x8b, 1, 2}) || aws.ToString(out.ContentEncoding) != "gzip" ||
		aws.ToString(out.ContentType) != "application/x-ndjson" || !out.LastModified.Equal(now) {
		t.Errorf("GetObject: body %x, Content-Encoding %q, Content-Type %q, Last-Modified %v",
			body, aws.ToString(out.ContentEncoding), aws.ToString(out.ContentType), out.LastModified)
	}
	if err := p.DeleteObject(ctx, want[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteObject(ctx, want[0]); err != nil {
		t.Errorf("deleting a missing key: %v", err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("events"), Key: aws.String(want[0])})
	var nsk *types.NoSuchKey
	if !errors.As(err, &nsk) {
		t.Errorf("GetObject of a deleted key: %v, want NoSuchKey", err)
	}
}

func TestS3ErrorsAsTheSDKSeesThem(t *testing.T) {
	ctx := context.Background()
	s := mintlifytest.NewS3("events")
	defer s.Close()
	s.Put("a.jsonl", []byte("{}\n"), "")
	s.Put("b.jsonl", []byte("{}\n"), "")
	c := sdkClient(s, "us-east-1", "AKID", 1)
	list := func(c *s3.Client, bucket string) error {
		_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		return err
	}

	if code := apiCode(t, list(c, "nope")); code != "NoSuchBucket" {
		t.Errorf("another bucket: %s, want NoSuchBucket", code)
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("nope")}); err == nil || apiCode(t, err) != "NotFound" {
		t.Errorf("HeadBucket of another bucket: %v, want NotFound", err)
	}

	s.SetAccessKey("AKIDRIGHT")
	if code := apiCode(t, list(c, "events")); code != "AccessDenied" {
		t.Errorf("another access key: %s, want AccessDenied", code)
	}
	if err := list(sdkClient(s, "us-east-1", "AKIDRIGHT", 1), "events"); err != nil {
		t.Errorf("the configured access key: %v", err)
	}
	s.SetAccessKey("")

	s.SetRegion("eu-west-1")
	err := list(c, "events")
	if code := apiCode(t, err); code != "AuthorizationHeaderMalformed" || !strings.Contains(err.Error(), "expecting 'eu-west-1'") {
		t.Errorf("wrong region: %v", err)
	}
	if err := list(sdkClient(s, "eu-west-1", "AKID", 1), "events"); err != nil {
		t.Errorf("the right region: %v", err)
	}
	s.SetRegion("")

	// SlowDown is retried by the SDK's standard retryer, and surfaces when
	// the attempts run out.
	s.Throttle(1)
	if err := list(sdkClient(s, "us-east-1", "AKID", 3), "events"); err != nil {
		t.Errorf("one SlowDown with 3 attempts: %v", err)
	}
	reqs := s.Requests()
	if last := reqs[len(reqs)-2:]; last[0].Status != http.StatusServiceUnavailable || last[1].Status != http.StatusOK {
		t.Errorf("requests %v: want 503 then 200", last)
	}
	s.Throttle(1)
	if code := apiCode(t, list(c, "events")); code != "SlowDown" {
		t.Errorf("throttled: %s, want SlowDown", code)
	}
	if err := list(c, "events"); err != nil {
		t.Errorf("after the throttle: %v", err)
	}

	// An object deleted between list and get.
	s.VanishAfterList("a.jsonl")
	page, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("events")})
	if err != nil || len(page.Contents) != 2 {
		t.Fatalf("list: %v, %d keys", err, len(page.Contents))
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("events"), Key: aws.String("a.jsonl")})
	var nsk *types.NoSuchKey
	if !errors.As(err, &nsk) {
		t.Errorf("vanished object: %v, want NoSuchKey", err)
	}
	if _, ok := s.Object("b.jsonl"); !ok {
		t.Error("b.jsonl vanished too")
	}
}

func TestS3RefusesWhatItDoesNotSupport(t *testing.T) {
	s := mintlifytest.NewS3("events")
	defer s.Close()
	for i := 0; i < 1001; i++ {
		s.Put(fmt.Sprintf("k%04d", i), []byte("x"), "")
	}
	if keys := listAll(t, s, "", "", 5000); len(keys) != 1001 || keys[1000] != "k1000" {
		t.Errorf("listed %d keys", len(keys))
	}
	for _, c := range []struct {
		name, method, path, auth string
		status                   int
		code                     string
	}{
		{"unsigned", "GET", "/events?list-type=2", "-", 403, "AccessDenied"},
		{"not SigV4", "GET", "/events?list-type=2", "Bearer x", 400, "AuthorizationHeaderMalformed"},
		{"bad token", "GET", "/events?list-type=2&continuation-token=zz", "", 400, "InvalidArgument"},
		{"bad max-keys", "GET", "/events?list-type=2&max-keys=-1", "", 400, "InvalidArgument"},
		{"list v1", "GET", "/events", "", 501, "NotImplemented"},
		{"delimiter", "GET", "/events?list-type=2&delimiter=/", "", 501, "NotImplemented"},
		{"no bucket", "GET", "/", "", 501, "NotImplemented"},
		{"missing key", "GET", "/events/nope", "", 404, "NoSuchKey"},
	} {
		req, _ := http.NewRequest(c.method, s.URL()+c.path, nil)
		switch c.auth {
		case "":
			req.Header.Set("Authorization", fakeSigV4)
		case "-":
		default:
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), "<Code>"+c.code+"</Code>") {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, b, c.status, c.code)
		}
	}
	// max-keys above 1000 is answered with 1000 keys at most.
	resp := s3Do(t, "GET", s.URL()+"/events?list-type=2&max-keys=5000", nil)
	b, _ := io.ReadAll(resp.Body)
	if n := strings.Count(string(b), "<Key>"); n != 1000 || !strings.Contains(string(b), "<IsTruncated>true</IsTruncated>") {
		t.Errorf("max-keys=5000: %d keys", n)
	}
}

func TestStreamWriterThroughTheSDKPutter(t *testing.T) {
	s := mintlifytest.NewS3("events")
	defer s.Close()
	p, err := s3sdk.NewPutter(s.URL(), "events", "", "AKID", "secret")
	if err != nil {
		t.Fatal(err)
	}
	w := mintlifytest.NewStreamWriter(p, "", 11)
	if err := w.Write(context.Background(), mintlifytest.StreamOptions{Events: 200, PerObject: 40, Faults: mintlifytest.AllStreamFaults()}); err != nil {
		t.Fatal(err)
	}
	want := w.Expect()
	if want.Vanished != 0 {
		t.Errorf("Vanished %d with an SDK Putter, want 0 (deleted before any listing)", want.Vanished)
	}
	if got := readBack(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v\nwant %+v", got, want)
	}
	if n := len(s.Keys()); int64(n) != want.Objects {
		t.Errorf("%d objects stored, want %d (the vanishing one deleted)", n, want.Objects)
	}
}
