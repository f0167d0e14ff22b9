package mintlifytest

import (
	"net/http"
	"strings"
)

// DefaultKey is the admin API key a Server accepts unless WithKeys or
// SetKeys says otherwise.
const DefaultKey = "mint_0123456789abcdef0123456789abcdef"

// Key prefixes of the two kinds of Mintlify keys that are not admin keys.
const (
	assistantKeyPrefix = "mint_dsc_"
	indexKeyPrefix     = "mint_us_"
)

// SetKeys rotates keys: only these keys are accepted from now on. Every key
// belongs to the one organization and works for every project.
func (s *Server) SetKeys(keys ...string) {
	s.mu.Lock()
	s.setKeys(keys)
	s.mu.Unlock()
}

func (s *Server) setKeys(keys []string) {
	s.keys = make(map[string]bool, len(keys))
	for _, k := range keys {
		s.keys[k] = true
		delete(s.revoked, k)
	}
}

// RevokeKey revokes a key: requests with it are answered 401.
func (s *Server) RevokeKey(key string) {
	s.mu.Lock()
	delete(s.keys, key)
	s.revoked[key] = true
	s.mu.Unlock()
}

// authorize checks the Authorization header. It returns 0 when the request
// may proceed, else the status and the error message to answer with. The
// message never contains the key.
func (s *Server) authorize(header string) (int, string) {
	if header == "" {
		return http.StatusUnauthorized, "Missing Authorization header"
	}
	key, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return http.StatusUnauthorized, "Invalid Authorization header: expected Bearer token"
	}
	if key == "" {
		return http.StatusUnauthorized, "Missing API key"
	}
	s.mu.Lock()
	accepted, revoked := s.keys[key], s.revoked[key]
	s.mu.Unlock()
	switch {
	case revoked:
		return http.StatusUnauthorized, "API key has been revoked"
	case !accepted:
		return http.StatusUnauthorized, "Invalid API key"
	case strings.HasPrefix(key, assistantKeyPrefix), strings.HasPrefix(key, indexKeyPrefix):
		return http.StatusForbidden, "An admin API key is required for this endpoint"
	}
	return 0, ""
}
