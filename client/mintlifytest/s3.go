package mintlifytest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Putter is where a StreamWriter writes objects: *S3 implements it, and
// s3sdk.NewPutter over the AWS SDK for any S3-compatible endpoint.
type Putter interface {
	// PutObject stores body under key; contentEncoding is sent as the
	// object's Content-Encoding ("" for none).
	PutObject(ctx context.Context, key string, body []byte, contentEncoding string) error
	// DeleteObject removes key; a missing key is not an error.
	DeleteObject(ctx context.Context, key string) error
}

// S3 is an in-process, path-style S3-compatible server on 127.0.0.1 with
// one bucket, for unit tests and the demo. It serves, with S3's own XML:
//
//	GET    /{bucket}?list-type=2  ListObjectsV2 (prefix, start-after, continuation-token, max-keys, encoding-type=url)
//	GET    /{bucket}/{key}        GetObject (Content-Encoding and Content-Type as put, Last-Modified, ETag)
//	PUT    /{bucket}/{key}        PutObject (aws-chunked bodies decoded)
//	DELETE /{bucket}/{key}        DeleteObject
//	HEAD   /{bucket}              HeadBucket
//	PUT    /{bucket}              CreateBucket of its own bucket (200)
//
// Errors are S3's XML (NoSuchKey, NoSuchBucket, AccessDenied,
// AuthorizationHeaderMalformed, SlowDown, InvalidArgument, NotImplemented)
// with S3's statuses, so the AWS SDK for Go v2 classifies them as it does
// for real S3. Faults for tests: Throttle and VanishAfterList.
type S3 struct {
	bucket string
	srv    *httptest.Server

	mu        sync.Mutex
	objects   map[string]*s3Object
	now       func() time.Time
	accessKey string // "" = any access key id
	region    string // "" = any region in the credential scope
	throttle  int
	vanish    map[string]bool
	requests  []S3Request
	reqID     int
}

type s3Object struct {
	body            []byte
	contentEncoding string
	contentType     string
	lastModified    time.Time
	etag            string
}

// S3Request is one request the S3 fake received, as Requests reports it.
type S3Request struct {
	Op     string // ListObjectsV2, GetObject, PutObject, DeleteObject, HeadBucket, CreateBucket, or the method for others
	Key    string // the object key, or the prefix of a listing
	Status int
}

// NewS3 starts an S3 fake serving bucket on 127.0.0.1.
func NewS3(bucket string) *S3 {
	s := &S3{bucket: bucket, objects: map[string]*s3Object{}, vanish: map[string]bool{}, now: time.Now}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the endpoint, e.g. http://127.0.0.1:PORT (path-style: the
// bucket is the first path segment).
func (s *S3) URL() string { return s.srv.URL }

// Bucket returns the bucket's name.
func (s *S3) Bucket() string { return s.bucket }

// Close shuts the server down.
func (s *S3) Close() { s.srv.Close() }

// SetClock sets the clock of objects' Last-Modified (time.Now by default).
func (s *S3) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// SetAccessKey makes every request signed with another access key id than
// id answer 403 AccessDenied ("" accepts any, the default).
func (s *S3) SetAccessKey(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accessKey = id
}

// SetRegion makes requests whose SigV4 credential scope names another
// region answer 400 AuthorizationHeaderMalformed naming the expected
// region, as S3 does ("" accepts any region, the default). HeadBucket
// answers x-amz-bucket-region with it ("us-east-1" when unset).
func (s *S3) SetRegion(region string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.region = region
}

// Throttle answers the next n requests 503 SlowDown.
func (s *S3) Throttle(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle = n
}

// VanishAfterList deletes key as soon as a listing has returned it, so the
// GetObject that follows is answered 404 NoSuchKey: an object removed
// (by a lifecycle rule, by hand) between list and get.
func (s *S3) VanishAfterList(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vanish[key] = true
}

// Put stores an object directly, without HTTP. Its Content-Type is
// binary/octet-stream, S3's default.
func (s *S3) Put(key string, body []byte, contentEncoding string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(key, body, contentEncoding, "")
}

func (s *S3) putLocked(key string, body []byte, contentEncoding, contentType string) *s3Object {
	if contentType == "" {
		contentType = "binary/octet-stream"
	}
	sum := md5.Sum(body)
	o := &s3Object{
		body:            append([]byte(nil), body...),
		contentEncoding: contentEncoding,
		contentType:     contentType,
		lastModified:    s.now().UTC().Truncate(time.Second),
		etag:            `"` + hex.EncodeToString(sum[:]) + `"`,
	}
	s.objects[key] = o
	return o
}

// Delete removes an object directly, without HTTP.
func (s *S3) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, key)
}

// Keys returns the keys stored, in byte order.
func (s *S3) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedKeysLocked()
}

// Object returns an object's body as stored, and whether it exists.
func (s *S3) Object(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objects[key]
	if !ok {
		return nil, false
	}
	return append([]byte(nil), o.body...), true
}

// maxS3Requests bounds the request log: past it the older half is dropped.
const maxS3Requests = 10000

// Requests returns the log of the requests received, oldest first (the
// last 5,000 to 10,000).
func (s *S3) Requests() []S3Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]S3Request(nil), s.requests...)
}

// PutObject implements Putter (directly, without HTTP).
func (s *S3) PutObject(ctx context.Context, key string, body []byte, contentEncoding string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.Put(key, body, contentEncoding)
	return nil
}

// DeleteObject implements Putter (directly, without HTTP).
func (s *S3) DeleteObject(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.Delete(key)
	return nil
}

func (s *S3) sortedKeysLocked() []string {
	keys := make([]string, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	sort.Strings(keys) // byte order, as S3 lists UTF-8 keys
	return keys
}

// s3Error is S3's XML error body.
type s3Error struct {
	XMLName    xml.Name `xml:"Error"`
	Code       string
	Message    string
	Key        string `xml:",omitempty"`
	BucketName string `xml:",omitempty"`
	Region     string `xml:",omitempty"`
	RequestID  string `xml:"RequestId"`
	HostID     string `xml:"HostId"`
}

type s3Answer struct {
	status int
	op     string
	key    string
}

var sigV4Credential = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/s3/aws4_request,\s*SignedHeaders=[a-z0-9;-]+,\s*Signature=[0-9a-f]{64}$`)

func (s *S3) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqID++
	id := fmt.Sprintf("%016X", s.reqID)
	s.mu.Unlock()
	w.Header().Set("x-amz-request-id", id)
	w.Header().Set("x-amz-id-2", "fake/"+id)
	w.Header().Set("Server", "mintlifytest-s3")

	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	a := s3Answer{op: s3Op(r, key), key: key}
	if a.op == "ListObjectsV2" {
		a.key = r.URL.Query().Get("prefix")
	}
	defer func() {
		s.mu.Lock()
		if len(s.requests) == maxS3Requests { // the demo runs for days
			s.requests = append(s.requests[:0], s.requests[maxS3Requests/2:]...)
		}
		s.requests = append(s.requests, S3Request{Op: a.op, Key: a.key, Status: a.status})
		s.mu.Unlock()
	}()
	fail := func(status int, e s3Error) {
		a.status = status
		e.RequestID, e.HostID = id, "fake/"+id
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		if r.Method == http.MethodHead {
			return // HEAD answers carry no body
		}
		_, _ = io.WriteString(w, xml.Header)
		_ = xml.NewEncoder(w).Encode(e)
	}

	s.mu.Lock()
	throttled := s.throttle > 0
	if throttled {
		s.throttle--
	}
	wantKey, wantRegion := s.accessKey, s.region
	s.mu.Unlock()
	if throttled {
		fail(http.StatusServiceUnavailable, s3Error{Code: "SlowDown", Message: "Please reduce your request rate."})
		return
	}

	m := sigV4Credential.FindStringSubmatch(r.Header.Get("Authorization"))
	switch {
	case r.Header.Get("Authorization") == "":
		fail(http.StatusForbidden, s3Error{Code: "AccessDenied", Message: "Access Denied"})
		return
	case m == nil:
		fail(http.StatusBadRequest, s3Error{Code: "AuthorizationHeaderMalformed", Message: "The authorization header is malformed; the fake expects AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/s3/aws4_request, SignedHeaders=..., Signature=HEX64."})
		return
	case wantKey != "" && m[1] != wantKey:
		fail(http.StatusForbidden, s3Error{Code: "AccessDenied", Message: "Access Denied"})
		return
	case wantRegion != "" && m[3] != wantRegion:
		fail(http.StatusBadRequest, s3Error{Code: "AuthorizationHeaderMalformed", Region: wantRegion,
			Message: fmt.Sprintf("The authorization header is malformed; the region '%s' is wrong; expecting '%s'", m[3], wantRegion)})
		return
	}

	if bucket == "" {
		fail(http.StatusNotImplemented, s3Error{Code: "NotImplemented", Message: "The fake serves one bucket, path-style: /" + s.bucket})
		return
	}
	if bucket != s.bucket {
		if a.op == "CreateBucket" {
			fail(http.StatusNotImplemented, s3Error{Code: "NotImplemented", Message: "The fake serves only the bucket " + s.bucket})
			return
		}
		fail(http.StatusNotFound, s3Error{Code: "NoSuchBucket", Message: "The specified bucket does not exist", BucketName: bucket})
		return
	}

	switch a.op {
	case "HeadBucket":
		region := wantRegion
		if region == "" {
			region = "us-east-1"
		}
		w.Header().Set("x-amz-bucket-region", region)
		a.status = http.StatusOK
		w.WriteHeader(http.StatusOK)
	case "CreateBucket":
		w.Header().Set("Location", "/"+s.bucket)
		a.status = http.StatusOK
		w.WriteHeader(http.StatusOK)
	case "ListObjectsV2":
		s.list(w, r, &a, fail)
	case "GetObject":
		s.mu.Lock()
		o, ok := s.objects[key]
		s.mu.Unlock()
		if !ok {
			fail(http.StatusNotFound, s3Error{Code: "NoSuchKey", Message: "The specified key does not exist.", Key: key})
			return
		}
		h := w.Header()
		h.Set("Content-Type", o.contentType)
		if o.contentEncoding != "" {
			h.Set("Content-Encoding", o.contentEncoding)
		}
		h.Set("Content-Length", strconv.Itoa(len(o.body)))
		h.Set("Last-Modified", o.lastModified.Format(http.TimeFormat))
		h.Set("ETag", o.etag)
		h.Set("Accept-Ranges", "bytes")
		a.status = http.StatusOK
		w.WriteHeader(http.StatusOK)
		_, _ = io.Copy(w, bytes.NewReader(o.body)) // streamed in chunks; the body is never changed in place
	case "PutObject":
		body, enc, err := readPutBody(r)
		if err != nil {
			fail(http.StatusBadRequest, s3Error{Code: "IncompleteBody", Message: err.Error(), Key: key})
			return
		}
		s.mu.Lock()
		o := s.putLocked(key, body, enc, r.Header.Get("Content-Type"))
		s.mu.Unlock()
		w.Header().Set("ETag", o.etag)
		a.status = http.StatusOK
		w.WriteHeader(http.StatusOK)
	case "DeleteObject":
		s.Delete(key)
		a.status = http.StatusNoContent
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(http.StatusNotImplemented, s3Error{Code: "NotImplemented", Message: "The fake does not implement " + r.Method + " " + r.URL.Path + " with these parameters."})
	}
}

func s3Op(r *http.Request, key string) string {
	q := r.URL.Query()
	switch {
	case key == "" && r.Method == http.MethodGet && q.Get("list-type") == "2" && !q.Has("delimiter"):
		return "ListObjectsV2"
	case key == "" && r.Method == http.MethodHead:
		return "HeadBucket"
	case key == "" && r.Method == http.MethodPut && len(q) == 0:
		return "CreateBucket"
	case key != "" && r.Method == http.MethodGet && !q.Has("uploadId") && !q.Has("acl") && !q.Has("tagging") && !q.Has("attributes"):
		return "GetObject"
	case key != "" && r.Method == http.MethodPut && !q.Has("uploadId") && !q.Has("acl") && !q.Has("tagging") && r.Header.Get("x-amz-copy-source") == "":
		return "PutObject"
	case key != "" && r.Method == http.MethodDelete && !q.Has("uploadId"):
		return "DeleteObject"
	}
	return r.Method
}

// readPutBody reads a PutObject body, decoding the aws-chunked encoding the
// SDK uses for streamed or trailing-checksum uploads, and returns the
// Content-Encoding to store (aws-chunked removed).
func readPutBody(r *http.Request) ([]byte, string, error) {
	var encs []string
	chunked := false
	for _, e := range strings.Split(r.Header.Get("Content-Encoding"), ",") {
		e = strings.TrimSpace(e)
		switch e {
		case "":
		case "aws-chunked":
			chunked = true
		default:
			encs = append(encs, e)
		}
	}
	if sha := r.Header.Get("x-amz-content-sha256"); strings.HasPrefix(sha, "STREAMING-") {
		chunked = true
	}
	enc := strings.Join(encs, ",")
	if !chunked {
		b, err := io.ReadAll(r.Body)
		return b, enc, err
	}
	var out bytes.Buffer
	br := bufio.NewReader(r.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, "", fmt.Errorf("aws-chunked body ends inside a chunk header: %v", err)
		}
		sizeHex, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		n, err := strconv.ParseInt(sizeHex, 16, 64)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("aws-chunked chunk size %q is not hexadecimal", sizeHex)
		}
		if n == 0 {
			break // trailers (checksums) follow; they are not verified
		}
		if _, err := io.CopyN(&out, br, n); err != nil {
			return nil, "", fmt.Errorf("aws-chunked chunk shorter than its size: %v", err)
		}
		if crlf, err := br.ReadString('\n'); err != nil || strings.TrimRight(crlf, "\r\n") != "" {
			return nil, "", fmt.Errorf("aws-chunked chunk not followed by CRLF")
		}
	}
	if d := r.Header.Get("x-amz-decoded-content-length"); d != "" && d != strconv.Itoa(out.Len()) {
		return nil, "", fmt.Errorf("aws-chunked body has %d bytes, x-amz-decoded-content-length says %s", out.Len(), d)
	}
	return out.Bytes(), enc, nil
}

type listBucketResult struct {
	XMLName               xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  string
	Prefix                string
	ContinuationToken     string `xml:",omitempty"`
	NextContinuationToken string `xml:",omitempty"`
	StartAfter            string `xml:",omitempty"`
	KeyCount              int
	MaxKeys               int
	EncodingType          string `xml:",omitempty"`
	IsTruncated           bool
	Contents              []listEntry
}

type listEntry struct {
	Key          string
	LastModified string
	ETag         string
	Size         int
	StorageClass string
}

const s3MaxKeys = 1000

func (s *S3) list(w http.ResponseWriter, r *http.Request, a *s3Answer, fail func(int, s3Error)) {
	q := r.URL.Query()
	prefix, startAfter, token := q.Get("prefix"), q.Get("start-after"), q.Get("continuation-token")
	encoding := q.Get("encoding-type")
	if encoding != "" && encoding != "url" {
		fail(http.StatusBadRequest, s3Error{Code: "InvalidArgument", Message: "Invalid Encoding Method specified in Request"})
		return
	}
	maxKeys := s3MaxKeys
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fail(http.StatusBadRequest, s3Error{Code: "InvalidArgument", Message: "Provided max-keys not an integer or within integer range"})
			return
		}
		maxKeys = min(n, s3MaxKeys)
	}
	after := startAfter
	if q.Has("continuation-token") {
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || !strings.HasPrefix(string(b), "k:") {
			fail(http.StatusBadRequest, s3Error{Code: "InvalidArgument", Message: "The continuation token provided is incorrect"})
			return
		}
		after = string(b[2:]) // start-after is ignored with a continuation token, as S3 does
	}
	esc := func(v string) string {
		if encoding == "url" {
			return strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
		}
		return v
	}
	res := listBucketResult{Name: s.bucket, Prefix: esc(prefix), MaxKeys: maxKeys, ContinuationToken: token,
		StartAfter: esc(startAfter), EncodingType: encoding}
	s.mu.Lock()
	var listed []string
	for _, k := range s.sortedKeysLocked() {
		if !strings.HasPrefix(k, prefix) || k <= after {
			continue
		}
		if len(res.Contents) == maxKeys {
			res.IsTruncated = true
			break
		}
		o := s.objects[k]
		res.Contents = append(res.Contents, listEntry{Key: esc(k), LastModified: o.lastModified.Format("2006-01-02T15:04:05.000Z"),
			ETag: o.etag, Size: len(o.body), StorageClass: "STANDARD"})
		listed = append(listed, k)
	}
	for _, k := range listed {
		if s.vanish[k] {
			delete(s.vanish, k)
			delete(s.objects, k)
		}
	}
	s.mu.Unlock()
	res.KeyCount = len(res.Contents)
	if res.IsTruncated && len(listed) > 0 {
		res.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte("k:" + listed[len(listed)-1]))
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	if err := xml.NewEncoder(&buf).Encode(res); err != nil {
		fail(http.StatusInternalServerError, s3Error{Code: "InternalError", Message: err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	a.status = http.StatusOK
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
