package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
)

// errNoSignature: the X-Hub-Signature-256 header is missing or malformed,
// so the body is not read at all.
var errNoSignature = errors.New("missing or malformed X-Hub-Signature-256")

// readSigned reads the body (at most maxBody bytes) while computing its
// HMAC-SHA256, into a buffer sized once from Content-Length, and reports
// whether it matches the signature header. A request without a well-formed
// header is refused before a byte of its body is read.
func readSigned(w http.ResponseWriter, r *http.Request, secret []byte, maxBody int64) ([]byte, bool, error) {
	want, ok := parseSignature(r.Header.Get("X-Hub-Signature-256"))
	if !ok {
		return nil, false, errNoSignature
	}
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= maxBody {
		buf.Grow(int(n))
	}
	mac := hmac.New(sha256.New, secret)
	// MaxBytesReader also tells the server to close an oversized connection.
	if _, err := io.Copy(io.MultiWriter(&buf, mac), http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), hmac.Equal(want, mac.Sum(nil)), nil
}

// parseSignature decodes "sha256=<64 hex digits>".
func parseSignature(header string) ([]byte, bool) {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(hexSig) != 2*sha256.Size {
		return nil, false
	}
	b, err := hex.DecodeString(hexSig)
	return b, err == nil
}
