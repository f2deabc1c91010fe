package sessionweb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Cookie names.
const (
	signInCookie = "issuesmith_session"
	stateCookie  = "issuesmith_oauth"
)

// signIn is what the sign-in cookie holds.
type signIn struct {
	Login   string    `json:"l"`
	Token   string    `json:"t"`
	Expires time.Time `json:"e"`
}

// pending is an OAuth sign-in under way: the state cookie.
type pending struct {
	State    string    `json:"s"`
	Verifier string    `json:"v"`
	Return   string    `json:"r"`
	Expires  time.Time `json:"e"`
}

// sealer seals cookie values with AES-GCM: authenticated (a forged or
// altered cookie does not open) and private (the token is not readable).
type sealer struct{ aead cipher.AEAD }

// newSealer derives the cookie key from secret for the page at base: a
// cookie of one page (one forge's sign-in) does not open on another.
func newSealer(secret []byte, base string) (*sealer, error) {
	if len(secret) < 16 {
		return nil, errors.New("sessions: the cookie key needs at least 16 bytes of secret")
	}
	mac := hmac.New(sha256.New, secret)
	purpose := "issuesmith sessions cookie v1"
	if base != "/sessions" {
		purpose += " " + base // /sessions keeps the key it always had
	}
	mac.Write([]byte(purpose))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

// seal encrypts v under name (a cookie cannot be moved to another name).
func (s *sealer) seal(name string, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(name))), nil
}

var errBadCookie = errors.New("cookie does not open")

// open decrypts a sealed value into v.
func (s *sealer) open(name, value string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return errBadCookie
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], []byte(name))
	if err != nil {
		return errBadCookie
	}
	if json.Unmarshal(plain, v) != nil {
		return errBadCookie
	}
	return nil
}

// setCookie writes a sealed cookie that lives until expires.
func (h *Handler) setCookie(w http.ResponseWriter, name string, v any, expires time.Time) error {
	val, err := h.seal.seal(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: val, Path: h.base, Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	return nil
}

func (h *Handler) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: h.base, MaxAge: -1,
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

// current returns the request's sign-in, or nil when there is none, it does
// not open (forged, altered, another server's) or it expired.
func (h *Handler) current(r *http.Request) *signIn {
	c, err := r.Cookie(signInCookie)
	if err != nil {
		return nil
	}
	var si signIn
	if h.seal.open(signInCookie, c.Value, &si) != nil || si.Login == "" || !h.now().Before(si.Expires) {
		return nil
	}
	return &si
}
