package stream

import (
	"context"
	"errors"
	"io"
	"time"
)

// Store lists and opens the objects of one bucket. stream/s3store implements
// it with the AWS SDK for Go v2; tests may implement it in memory.
type Store interface {
	// List returns up to max objects under prefix whose keys sort after
	// startAfter, in key order.
	List(ctx context.Context, prefix, startAfter string, max int) ([]ObjectInfo, error)
	// Open streams one object's body; the caller closes it. Never reads it
	// whole into memory.
	Open(ctx context.Context, key string) (io.ReadCloser, ObjectMeta, error)
}

// ObjectInfo is one listed object.
type ObjectInfo struct {
	Key          string
	Size         int64
	LastModified time.Time
}

// ObjectMeta is what Open tells about an object's body.
type ObjectMeta struct {
	ContentEncoding, ContentType string
	LastModified                 time.Time
}

// Store errors are classified with errors.Is against these sentinels (a Store
// wraps its own errors with them); any other error is transient and retried
// at the next poll.
var (
	// ErrNotFound: the object vanished between List and Open (NoSuchKey).
	ErrNotFound = errors.New("object not found")
	// ErrAccessDenied: the credentials may not list or read the bucket (403).
	ErrAccessDenied = errors.New("access denied")
	// ErrNoBucket: the bucket does not exist (NoSuchBucket).
	ErrNoBucket = errors.New("no such bucket")
	// ErrWrongRegion: the bucket is in another region (301, PermanentRedirect,
	// AuthorizationHeaderMalformed about the region).
	ErrWrongRegion = errors.New("wrong region")
	// ErrThrottled: the store asks to slow down (SlowDown, 503): the source
	// backs off and retries at a later poll.
	ErrThrottled = errors.New("throttled")
)
