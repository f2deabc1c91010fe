package ghtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v4"

	"github.com/issuesmith/issuesmith/internal/tb"
)

// testKey is one RSA key per test binary: generating 2048-bit keys per fake
// would cost more than the tests that use it.
var testKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

func appKey(t tb.TB) (*rsa.PrivateKey, []byte) {
	key, err := testKey()
	if err != nil {
		t.Fatalf("ghtest: generate app key: %v", err)
	}
	p := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return key, p
}

// appOps are the operations that take the App's JWT instead of a token.
var appOps = map[string]bool{
	"GET /app":                 true,
	"GET /app/hook/deliveries": true,
	"POST /app/hook/deliveries/{delivery_id}/attempts":        true,
	"POST /app/installations/{installation_id}/access_tokens": true,
}

// authenticate checks the credential the operation needs, as GitHub does: an
// RS256 JWT issued by the App for /app endpoints (at most 10 minutes long),
// an unexpired installation token with access to the repository otherwise.
// Failures answer 401/404 and fail the test: the bot must never send them.
func (s *Server) authenticate(c *call) (response, bool) {
	auth := c.r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(auth, " ")
	if noAuthOps[c.op] {
		return response{}, true
	}
	if appOps[c.op] {
		if !strings.EqualFold(scheme, "Bearer") {
			s.failf("%s without an App JWT (Authorization %q)", c.op, scheme)
			return errorResp(http.StatusUnauthorized, "A JSON web token could not be decoded"), false
		}
		if err := s.checkJWT(cred); err != "" {
			s.failf("%s with a bad App JWT: %s", c.op, err)
			return errorResp(http.StatusUnauthorized, err), false
		}
		return response{}, true
	}
	if !strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "Bearer") {
		s.failf("%s without an installation token", c.op)
		return errorResp(http.StatusUnauthorized, "Requires authentication"), false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(cred, "ghu_") {
		return s.authenticateUser(c, cred)
	}
	tok, ok := s.st.tokens[cred]
	if !ok || !s.now().Before(tok.expires) {
		s.failf("%s with an unknown or expired installation token", c.op)
		return errorResp(http.StatusUnauthorized, "Bad credentials"), false
	}
	c.installation = tok.installation
	if owner, name := c.param("owner"), c.param("repo"); owner != "" {
		rp := s.st.repos[owner+"/"+name]
		if rp == nil && s.st.ownsAccount(owner, tok.installation) {
			return errorResp(http.StatusNotFound, "Not Found"), false // its own account lacks it (a fork not made yet)
		}
		if rp == nil || rp.Installation != tok.installation && !publicOps[c.op] {
			s.failf("%s: installation %d has no access to %s/%s", c.op, tok.installation, owner, name)
			return errorResp(http.StatusNotFound, "Not Found"), false
		}
	}
	if w, ok := s.st.charge(tok.installation, time.Now()); !ok {
		return spent(tok.installation, w), false
	}
	return response{}, true
}

// checkJWT verifies an App JWT and returns why it is refused ("" if good).
func (s *Server) checkJWT(raw string) string {
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		if t.Method.Alg() != "RS256" {
			return nil, jwt.ErrSignatureInvalid
		}
		return &s.key.PublicKey, nil
	})
	switch {
	case err != nil:
		return "'Authorization' header is malformed or the JWT is invalid: " + err.Error()
	case claims.Issuer != strconv.FormatInt(s.opts.AppID, 10):
		return "'Issuer' claim ('iss') must be the App id"
	case claims.IssuedAt == nil || claims.ExpiresAt == nil:
		return "'iat' and 'exp' claims are required"
	case claims.IssuedAt.After(time.Now().Add(time.Minute)):
		return "'Issued at' claim ('iat') must be an Integer representing a time in the past"
	case claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute:
		return "'Expiration time' claim ('exp') is too far in the future"
	}
	return ""
}

// newToken issues an installation token (s.mu held).
func (s *Server) newToken(installation int64) (string, time.Time) {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	tok := "ghs_" + hex.EncodeToString(b)
	exp := s.now().Add(s.opts.TokenTTL)
	s.st.tokens[tok] = token{installation: installation, expires: exp}
	s.st.tokensIssued++
	return tok, exp
}

// IssuedTokens returns every installation token the fake has handed out,
// expired or not, sorted. Tests look for them where secrets must never be
// (logs, comments, stored files).
func (s *Server) IssuedTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.st.tokens))
	for tok := range s.st.tokens {
		out = append(out, tok)
	}
	sort.Strings(out)
	return out
}

// ValidToken reports whether tok is an installation token the fake issued,
// unexpired, whose installation owns repository owner/name: what GitHub
// checks of git's x-access-token password. Pass it to
// gittest.WithTokenCheck to put a git server behind the fake's tokens.
func (s *Server) ValidToken(owner, name, tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.st.tokens[tok]
	rp := s.st.repos[owner+"/"+name]
	return ok && s.now().Before(t.expires) && rp != nil && rp.Installation == t.installation
}
