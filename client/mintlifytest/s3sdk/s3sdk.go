// Package s3sdk writes to any S3-compatible server through the AWS SDK for
// Go v2: the Putter a mintlifytest.StreamWriter uses against versitygw,
// and CreateBucket. It is a package of its own so that the many tests of
// the API fake do not link the SDK (about 70 packages).
package s3sdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

// sdkPutter is a mintlifytest.Putter over the AWS SDK for Go v2.
type sdkPutter struct {
	c      *s3.Client
	bucket string
}

// NewPutter returns a mintlifytest.Putter that writes to bucket at an
// S3-compatible endpoint (e.g. versitygw in end-to-end tests, or the S3
// fake) through the AWS SDK for Go v2, path-style, with static
// credentials. region "" means us-east-1.
func NewPutter(endpoint, bucket, region, accessKey, secret string) (mintlifytest.Putter, error) {
	c, err := newSDKClient(endpoint, region, accessKey, secret)
	if err != nil {
		return nil, err
	}
	if bucket == "" {
		return nil, errors.New("s3sdk: NewPutter needs a bucket name")
	}
	return &sdkPutter{c: c, bucket: bucket}, nil
}

func newSDKClient(endpoint, region, accessKey, secret string) (*s3.Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("s3sdk: S3 endpoint %q is not an http(s) URL", endpoint)
	}
	if region == "" {
		region = "us-east-1"
	}
	cfg := aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(accessKey, secret, ""),
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	}), nil
}

// PutObject implements mintlifytest.Putter.
func (p *sdkPutter) PutObject(ctx context.Context, key string, body []byte, contentEncoding string) error {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(p.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   aws.String("application/x-ndjson"),
	}
	if contentEncoding != "" {
		in.ContentEncoding = aws.String(contentEncoding)
	}
	_, err := p.c.PutObject(ctx, in)
	return err
}

// DeleteObject implements mintlifytest.Putter.
func (p *sdkPutter) DeleteObject(ctx context.Context, key string) error {
	_, err := p.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(key)})
	return err
}

// CreateBucket creates bucket at an S3-compatible endpoint through the AWS
// SDK (path-style, static credentials; region "" means us-east-1). A
// bucket that already exists and is owned by these credentials is not an
// error.
func CreateBucket(ctx context.Context, endpoint, bucket, region, accessKey, secret string) error {
	c, err := newSDKClient(endpoint, region, accessKey, secret)
	if err != nil {
		return err
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(bucket)}
	if region != "" && region != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(region)}
	}
	_, err = c.CreateBucket(ctx, in)
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "BucketAlreadyOwnedByYou" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("s3sdk: create bucket %s at %s: %w", bucket, endpoint, err)
	}
	return nil
}
