package client

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/mintlify-exporter/mintlify_exporter/internal/filewatch"
)

// ErrNoKey is returned when no API key was configured.
var ErrNoKey = errors.New("no API key: set --mintlify.api-key-file or MINTLIFY_API_KEY")

// KeySource supplies the API key before every attempt, so it may change
// (rotation). Implementations must be safe for concurrent use.
type KeySource interface {
	Key() (string, error)
}

// CheckKey reports whether key looks like an admin API key; the error says
// which kind it is instead, never the key.
func CheckKey(key string) error {
	const wantAdmin = "the exporter needs an admin API key (mint_ followed by neither dsc_ nor us_) from the dashboard's API keys page"
	switch {
	case key == "":
		return ErrNoKey
	case strings.HasPrefix(key, "mint_dsc_"):
		return errors.New("the API key is an assistant API key (mint_dsc_); " + wantAdmin)
	case strings.HasPrefix(key, "mint_us_"):
		return errors.New("the API key is an index API key (mint_us_); " + wantAdmin)
	case !strings.HasPrefix(key, "mint_"):
		return errors.New("not a Mintlify admin API key: admin keys start with mint_ (create one on the API keys page of the Mintlify dashboard)")
	case key == "mint_":
		return errors.New("not a Mintlify admin API key: nothing follows the mint_ prefix (copy the whole key from the API keys page of the Mintlify dashboard)")
	}
	if i := strings.IndexFunc(key, func(r rune) bool { return r <= ' ' || r >= 0x7f }); i >= 0 {
		return fmt.Errorf("not a Mintlify admin API key: byte %d is a space, control or non-ASCII character", i)
	}
	return nil
}

type staticKey string

func (k staticKey) Key() (string, error) { return string(k), nil }

// StaticKey returns a KeySource for a fixed key, trimmed and checked.
func StaticKey(key string) (KeySource, error) {
	key = strings.TrimSpace(key)
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	return staticKey(key), nil
}

// FileKey is a KeySource that reads the key from a file again whenever the
// file changes (size, time, mode or identity), so a key rotates without a
// restart. After a good read, a failed one keeps the last good key and
// Status says why. Safe for concurrent use.
type FileKey struct {
	path string

	mu       sync.Mutex
	file     *filewatch.File // marked with the version the key was last read from
	key      string
	lastErr  error
	failures uint64
	notify   func(err error)
}

// Notify sets f, called with the error when the file cannot be used (again
// when the reason changes) and with nil once a good key is read again. It is
// called with the lock held: it must not call the FileKey.
func (k *FileKey) Notify(f func(err error)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.notify = f
}

// NewFileKey reads and checks the key file now; errors name the path, never
// its content.
func NewFileKey(path string) (*FileKey, error) {
	k := &FileKey{path: path, file: filewatch.New(path), notify: func(error) {}}
	if err := k.load(); err != nil {
		return nil, err
	}
	return k, nil
}

// Path returns the file's path.
func (k *FileKey) Path() string { return k.path }

// Key returns the key, re-reading the file first when it changed.
func (k *FileKey) Key() (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	// After a failure the file is read at every use: a fix within the
	// file system's timestamp granularity is not missed. A file that
	// cannot be looked at fails as load words it.
	if changed, err := k.file.Changed(); err == nil && !changed && k.lastErr == nil {
		return k.key, nil
	}
	switch err := k.load(); {
	case err != nil && (k.lastErr == nil || k.lastErr.Error() != err.Error()): // counted once per reason
		k.lastErr = err
		k.failures++
		k.notify(err)
	case err == nil && k.lastErr != nil: // recovered
		k.lastErr = nil
		k.notify(nil)
	}
	return k.key, nil
}

// KeyFileStatus is a snapshot of a FileKey's state.
type KeyFileStatus struct {
	// LastError says why the file's last re-read failed; nil when the key
	// in use is its current content.
	LastError error
	// Failures counts the file's failures, once per distinct reason.
	Failures uint64
	// WorldReadable reports whether the file, as last read, is readable by
	// any user.
	WorldReadable bool
}

// Status returns the file's state.
func (k *FileKey) Status() KeyFileStatus {
	k.mu.Lock()
	defer k.mu.Unlock()
	info := k.file.Seen()
	return KeyFileStatus{LastError: k.lastErr, Failures: k.failures, WorldReadable: info != nil && info.Mode().Perm()&0o004 != 0}
}

// load reads and checks the key file, and keeps the key and the version
// read.
func (k *FileKey) load() error {
	b, info, err := k.file.Read(maxKeyFileBytes)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("API key file %s: permission denied: %s", k.path, whoCannotRead(k.path))
	case errors.Is(err, filewatch.ErrTooLarge):
		return fmt.Errorf("API key file %s: more than %d bytes, too large for an API key", k.path, maxKeyFileBytes)
	case errors.As(err, &pe): // without its operation and path: the message names the path once
		return fmt.Errorf("API key file %s: %w", k.path, pe.Err)
	case err != nil:
		return fmt.Errorf("API key file %s: %w", k.path, err)
	}
	key := strings.TrimSpace(string(b))
	if err := CheckKey(key); err != nil {
		if errors.Is(err, ErrNoKey) {
			return fmt.Errorf("API key file %s is empty", k.path)
		}
		return fmt.Errorf("API key file %s: %w", k.path, err)
	}
	k.key = key
	k.file.Mark(info)
	return nil
}

// maxKeyFileBytes bounds the key file: keys are a few dozen bytes.
const maxKeyFileBytes = 4096
