package webhook

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// countingBody counts the bytes read from it.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func (c *countingBody) Close() error { return nil }

// TestUnsignedBodyIsNotRead: without a well-formed signature header the
// handler answers 401 before reading a byte of the body; with one, the body
// is read once while its HMAC is computed.
func TestUnsignedBodyIsNotRead(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	h, err := New(Options{Secret: secret, Intake: r.disp,
		BotLogin: r.bot, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []string{"", "sha256=00", "sha256=" + strings.Repeat("zz", 32), "sha1=abc"} {
		body := &countingBody{r: strings.NewReader(strings.Repeat("x", 1<<20))}
		req := httptest.NewRequest(http.MethodPost, "/webhook", body)
		req.Header.Set("X-GitHub-Event", "issues")
		req.Header.Set("X-GitHub-Delivery", "d-unsigned")
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusUnauthorized, rec.Code, sig)
		assert.Zero(t, body.read.Load(), "signature %q: the body was read", sig)
	}
	wellFormed := Sign([]byte("another secret"), []byte("x"))
	body := &countingBody{r: strings.NewReader("x")}
	req := httptest.NewRequest(http.MethodPost, "/webhook", body)
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-GitHub-Delivery", "d-wrong")
	req.Header.Set("X-Hub-Signature-256", wellFormed)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Equal(t, int64(1), body.read.Load())
}
