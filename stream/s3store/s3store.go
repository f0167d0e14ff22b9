// Package s3store is the event stream's Store over Amazon S3, or any
// S3-compatible server, with the official AWS SDK for Go v2. Credentials
// come from the SDK's default chain (environment, shared config and
// profiles, web identity, EKS Pod Identity, ECS and EC2 metadata) unless
// Options.Credentials injects static ones (tests, the demo); no flag holds
// a secret and nothing here logs one. The SDK's errors are mapped onto the
// stream package's sentinels, with one-line messages naming the flag at
// fault.
package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// Options configure a Store.
type Options struct {
	// Bucket is --stream.s3.bucket.
	Bucket string
	// Region is --stream.s3.region; "" takes the region of the AWS chain
	// (AWS_REGION, the profile's region).
	Region string
	// Endpoint is --stream.s3.endpoint: an S3-compatible server, addressed
	// path-style; "" is AWS.
	Endpoint string
	// AccessKeyID and SecretAccessKey, when both set, replace the credential
	// chain with static credentials (tests and the demo; no flag sets them).
	AccessKeyID, SecretAccessKey string
}

// Retries of one request: the SDK's standard retryer with at most
// maxAttempts attempts (so two retries) and at most maxBackoff between
// them, and without its client-side retry token bucket (the source polls
// again at its next interval anyway). A request thus ends within a few
// seconds of a failing store, and SIGTERM, which cancels the context,
// stops it at once.
const (
	maxAttempts = 3
	maxBackoff  = 2 * time.Second
	// headerTimeout bounds the wait for a response's headers; a body is
	// streamed for as long as the caller reads it.
	headerTimeout = 30 * time.Second
)

// Store lists and opens the objects of one bucket; it implements stream.Store.
type Store struct {
	client   *s3.Client
	bucket   string
	region   string
	endpoint string
}

var _ stream.Store = (*Store)(nil)

// New returns a Store of o.Bucket. It reads the AWS configuration (files
// and environment) but sends no request.
func New(ctx context.Context, o Options) (*Store, error) {
	if o.Bucket == "" {
		return nil, errors.New("--stream.s3.bucket is empty")
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = maxAttempts
				so.MaxBackoff = maxBackoff
				so.RateLimiter = ratelimit.None
			})
		}),
		// The SDK's own log lines (such as "Response has no supported
		// checksum" of S3-compatible servers) would bypass --log.format;
		// errors reach the source's log and Status instead.
		config.WithLogger(logging.Nop{}),
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = headerTimeout
		})),
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.AccessKeyID != "" || o.SecretAccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		// The SDK's message names the file or variable at fault, never a secret.
		return nil, fmt.Errorf("--stream.s3.bucket: cannot load the AWS configuration: %v", err)
	}
	if cfg.Region == "" {
		if o.Endpoint == "" {
			return nil, errors.New("--stream.s3.region is not set and the AWS configuration has no region (AWS_REGION, the profile's region): set --stream.s3.region to the bucket's region")
		}
		cfg.Region = "us-east-1" // S3-compatible servers commonly expect it
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
			so.UsePathStyle = true
		}
	})
	return &Store{client: client, bucket: o.Bucket, region: cfg.Region, endpoint: o.Endpoint}, nil
}

// Region returns the region requests are signed for.
func (s *Store) Region() string { return s.region }

// List returns up to max objects under prefix whose keys sort after
// startAfter, in key order, reading as many pages as needed.
func (s *Store) List(ctx context.Context, prefix, startAfter string, max int) ([]stream.ObjectInfo, error) {
	var out []stream.ObjectInfo
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	if startAfter != "" {
		in.StartAfter = aws.String(startAfter)
	}
	for len(out) < max {
		in.MaxKeys = aws.Int32(int32(min(max-len(out), 1000)))
		page, err := s.client.ListObjectsV2(ctx, in)
		if err != nil {
			return out, s.classify("list", prefix, err)
		}
		for _, o := range page.Contents {
			if o.Key == nil {
				continue
			}
			oi := stream.ObjectInfo{Key: *o.Key, Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				oi.LastModified = *o.LastModified
			}
			out = append(out, oi)
		}
		if !aws.ToBool(page.IsTruncated) || page.NextContinuationToken == nil || len(page.Contents) == 0 {
			break
		}
		in.ContinuationToken = page.NextContinuationToken
		in.StartAfter = nil // the token carries the position
	}
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// Open streams one object's body; the caller closes it.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, stream.ObjectMeta, error) {
	got, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, stream.ObjectMeta{}, s.classify("read", key, err)
	}
	meta := stream.ObjectMeta{ContentEncoding: aws.ToString(got.ContentEncoding), ContentType: aws.ToString(got.ContentType)}
	if got.LastModified != nil {
		meta.LastModified = *got.LastModified
	}
	return got.Body, meta, nil
}

// classify maps an SDK error onto the stream's sentinels, as one line that
// names the flag or the object at fault. what is "list" (of a prefix) or
// "read" (of a key).
func (s *Store) classify(what, name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code, msg := "", ""
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code, msg = apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	status, region := 0, ""
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		status = respErr.HTTPStatusCode()
		if r := respErr.Response; r != nil && r.Response != nil {
			region = r.Header.Get("X-Amz-Bucket-Region")
		}
	}
	object := "objects under prefix " + quoteOrNone(name)
	if what == "read" {
		object = "object " + quoteOrNone(name)
	}
	detail := code
	if msg != "" {
		detail = code + ": " + oneLine(msg)
	}
	if detail == "" {
		detail = fmt.Sprintf("HTTP %d", status)
	}
	switch {
	case code == "NoSuchKey" || (what == "read" && status == http.StatusNotFound && code != "NoSuchBucket"):
		return fmt.Errorf("%w: %s vanished before it was read (%s)", stream.ErrNotFound, object, detail)
	case code == "NoSuchBucket":
		return fmt.Errorf("%w: --stream.s3.bucket=%s does not exist%s (%s)", stream.ErrNoBucket, s.bucket, s.where(), detail)
	case code == "PermanentRedirect" || status == http.StatusMovedPermanently || code == "IllegalLocationConstraintException" ||
		(code == "AuthorizationHeaderMalformed" && strings.Contains(strings.ToLower(msg), "the region")):
		if m := expectingRegion.FindStringSubmatch(msg); region == "" && m != nil {
			region = m[1]
		}
		hint := "set --stream.s3.region to the bucket's region"
		if region != "" {
			hint = "set --stream.s3.region=" + region
		}
		return fmt.Errorf("%w: --stream.s3.bucket=%s is not in region %s: %s (%s)", stream.ErrWrongRegion, s.bucket, s.region, hint, detail)
	case code == "AccessDenied" || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
		code == "AuthorizationHeaderMalformed" || code == "ExpiredToken" || code == "InvalidToken" || status == http.StatusForbidden:
		return fmt.Errorf("%w: the AWS credentials may not %s %s of --stream.s3.bucket=%s: check the credential chain and the read-only policy in docs/stream.md (%s)",
			stream.ErrAccessDenied, what, object, s.bucket, detail)
	case code == "SlowDown" || code == "Throttling" || code == "ThrottlingException" || code == "RequestLimitExceeded" ||
		status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: --stream.s3.bucket=%s asks to slow down; backing off until a later poll (%s)", stream.ErrThrottled, s.bucket, detail)
	}
	if code != "" || status != 0 {
		return fmt.Errorf("cannot %s %s of --stream.s3.bucket=%s%s: %s", what, object, s.bucket, s.where(), detail)
	}
	return fmt.Errorf("cannot %s %s of --stream.s3.bucket=%s%s: %s", what, object, s.bucket, s.where(), oneLine(err.Error()))
}

// expectingRegion finds the region S3 names in an AuthorizationHeaderMalformed
// message ("the region 'us-east-1' is wrong; expecting 'eu-west-1'").
var expectingRegion = regexp.MustCompile(`expecting '([a-z0-9-]{1,50})'`)

// where names the endpoint, when not AWS.
func (s *Store) where() string {
	if s.endpoint != "" {
		return " at --stream.s3.endpoint=" + s.endpoint
	}
	return ""
}

func quoteOrNone(s string) string {
	if s == "" {
		return `""`
	}
	return fmt.Sprintf("%q", s)
}

// oneLine keeps the first line of s, at most 300 bytes.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
