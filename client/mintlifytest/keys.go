package mintlifytest

import (
	"net/http"
	"net/netip"
	"slices"
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
	s.access.scopes = nil
}

// Scopes an admin key can be limited to. A key without a limit has both.
const (
	// ScopeRead allows the GET endpoints: everything the exporter does.
	ScopeRead = "read"
	// ScopeWrite allows the POST endpoints: send-message and create.
	ScopeWrite = "write"
)

// access is the organization's IP allowlist and its keys' scopes. It is
// guarded by Server.mu.
type access struct {
	allowlist []netip.Prefix      // nil: every address allowed
	scopes    map[string][]string // key -> scopes; a key not here has all
}

// SetKeyScopes accepts key from now on (like adding it to SetKeys) with
// only the given scopes: SetKeyScopes(k, ScopeRead) makes a read-only key,
// whose POST requests are answered 403. With no scope the key can call
// nothing. SetKeys and WithKeys clear every limit.
func (s *Server) SetKeyScopes(key string, scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = true
	delete(s.revoked, key)
	if s.access.scopes == nil {
		s.access.scopes = make(map[string][]string)
	}
	s.access.scopes[key] = append([]string{}, scopes...)
}

// SetAllowlist sets the organization's IP allowlist: from now on a request
// from an address outside every prefix is answered 403, whatever its key.
// No prefix (the default) allows every address. The fake listens on
// 127.0.0.1, so SetAllowlist(netip.MustParsePrefix("10.0.0.0/8")) refuses
// every test client.
func (s *Server) SetAllowlist(prefixes ...netip.Prefix) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access.allowlist = append([]netip.Prefix(nil), prefixes...)
	if len(prefixes) == 0 {
		s.access.allowlist = nil
	}
}

// permit checks the allowlist and the key's scope for a request that
// passed authorize. It returns 0 when the request may proceed, else 403 and
// the message to answer with.
func (s *Server) permit(r *http.Request, key string) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.access.allowlist != nil {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		allowed := false
		for _, p := range s.access.allowlist {
			if err == nil && p.Contains(ap.Addr().Unmap()) {
				allowed = true
				break
			}
		}
		if !allowed {
			return http.StatusForbidden, "IP address is not on the organization's allowlist"
		}
	}
	scopes, limited := s.access.scopes[key]
	need := ScopeRead
	if r.Method != http.MethodGet {
		need = ScopeWrite
	}
	if limited && !slices.Contains(scopes, need) {
		return http.StatusForbidden, "API key does not have the " + need + " scope"
	}
	return 0, ""
}

// RevokeKey revokes a key: requests with it are answered 401.
func (s *Server) RevokeKey(key string) {
	s.mu.Lock()
	delete(s.keys, key)
	s.revoked[key] = true
	s.mu.Unlock()
}

// authorize checks a request's key (401 for a missing, unknown or revoked
// one, 403 for a key of the wrong kind), then the allowlist and the key's
// scopes (403, see permit). It returns 0 when the request may proceed, else
// the status and the error message to answer with. The message never
// contains the key.
func (s *Server) authorize(r *http.Request) (int, string) {
	header := r.Header.Get("Authorization")
	if status, msg := s.authenticate(header); status != 0 {
		return status, msg
	}
	return s.permit(r, strings.TrimPrefix(header, "Bearer "))
}

// authenticate checks the Authorization header alone.
func (s *Server) authenticate(header string) (int, string) {
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
