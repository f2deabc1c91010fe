package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// RoleHeader carries the agent role of a request to the server. Real
// endpoints ignore it; llmtest matches scripts on it.
const RoleHeader = "X-Issuesmith-Role"

// hint is per-attempt data shared between Chat and the HTTP transport.
type hint struct {
	role       Role
	retryAfter string // the last Retry-After header seen
	// retryAfterMS is the last retry-after-ms header (OpenAI, Azure),
	// which wins over Retry-After.
	retryAfterMS string
	// resetRequests and resetTokens are OpenAI's x-ratelimit-reset-requests
	// and x-ratelimit-reset-tokens ("1s", "6m0s", "20ms"), used when a 429
	// carries no Retry-After.
	resetRequests, resetTokens string
	// patches add provider fields to the request body (client_wire.go).
	patches []extraPatch
	// cacheMarks marks the body's stable prefix (cache_marks.go).
	cacheMarks bool
	// body, when set, receives a copy of a plain JSON response body.
	body *bytes.Buffer
}

type hintKey struct{}

// hintTransport adds the role header and records Retry-After, which
// go-openai's errors do not carry.
type hintTransport struct{ base http.RoundTripper }

func (t *hintTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h, _ := req.Context().Value(hintKey{}).(*hint)
	if h != nil && h.role != "" {
		req = req.Clone(req.Context())
		req.Header.Set(RoleHeader, string(h.role))
		if probed, ok := req.Context().Value(probeKey{}).(Role); ok {
			req.Header.Set(ProbeHeader, string(probed))
		}
	}
	if h != nil {
		var err error
		if req, err = patchRequest(req, h.patches, h.cacheMarks); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	fixArgs(resp)
	if h != nil && resp != nil {
		h.retryAfter = resp.Header.Get("Retry-After")
		h.retryAfterMS = resp.Header.Get("Retry-After-Ms")
		h.resetRequests = resp.Header.Get("X-Ratelimit-Reset-Requests")
		h.resetTokens = resp.Header.Get("X-Ratelimit-Reset-Tokens")
		if h.body != nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			h.body.Reset()
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(resp.Body, h.body), resp.Body}
		}
	}
	return resp, err
}

// withRetry runs fn until it succeeds, fails permanently, attempts run out
// or ctx ends. Each attempt gets its own timeout.
func (c *Client) withRetry(ctx context.Context, role Role, fn func(context.Context) (*Response, error)) (*Response, error) {
	var lastErr error
	for attempt := 0; attempt < c.retry.MaxAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := &hint{role: role}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, hintKey{}, h), c.cfg.Timeout)
		resp, err := fn(actx)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if timedOut {
			err = fmt.Errorf("%w: no reply within %s (%s)", ErrTimeout, c.cfg.setting("timeout"), c.cfg.Timeout)
		}
		lastErr = err
		if !retryable(err) || attempt == c.retry.MaxAttempts-1 {
			break
		}
		wait, why := c.backoff(attempt), "a retry after the error"
		ra, ok := parseRetryAfter(h.retryAfter, c.now())
		if ms, err := strconv.ParseFloat(h.retryAfterMS, 64); err == nil && ms >= 0 {
			ra, ok = time.Duration(ms*float64(time.Millisecond)), true
		}
		if ok {
			why = "the server's Retry-After"
		} else if code, _ := statusOf(err); code == 429 {
			if ra, ok = resetAfter(h); ok {
				why = "the rate limit's reset (x-ratelimit-reset-*)"
			}
		}
		if ok {
			if ra > c.retry.MaxRetryAfter {
				return nil, fmt.Errorf("%w: server asks to wait %s (over %s): %w", ErrRateLimited, ra, c.cfg.setting("retry.max_retry_after"), err)
			}
			wait = ra
		}
		c.log.WarnContext(ctx, "model call failed, retrying", "role", role, "attempt", attempt+1,
			"wait", wait, "error", hideKey(err, c.cfg.APIKey))
		if wait >= longWait {
			// Said apart, so a long silence is never a mystery.
			c.log.WarnContext(ctx, fmt.Sprintf("waiting %s for %s before asking the model again", wait.Round(time.Second), why),
				"role", role, "attempt", attempt+1)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// longWait is the wait past which the client says what it waits for.
const longWait = 3 * time.Second

// resetAfter reads OpenAI's x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens (Go-style durations: "1s", "6m0s", "20ms"): the
// longer of those given, since both limits must have reset.
func resetAfter(h *hint) (time.Duration, bool) {
	var d time.Duration
	ok := false
	for _, v := range []string{h.resetRequests, h.resetTokens} {
		if r, err := time.ParseDuration(strings.TrimSpace(v)); err == nil && r >= 0 {
			d, ok = max(d, r), true
		}
	}
	return d, ok
}

// backoff is exponential with equal jitter: half fixed, half random.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.BaseDelay << attempt
	if d > c.retry.MaxDelay || d <= 0 {
		d = c.retry.MaxDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// statusOf returns the HTTP status behind a go-openai error.
func statusOf(err error) (int, bool) {
	var ae *openai.APIError
	if errors.As(err, &ae) && ae.HTTPStatusCode != 0 {
		return ae.HTTPStatusCode, true
	}
	var re *openai.RequestError
	if errors.As(err, &re) && re.HTTPStatusCode != 0 {
		return re.HTTPStatusCode, true
	}
	return 0, false
}

// retryable says whether err is transient: 408 (a timeout), 429, 5xx, timeouts,
// connection resets, truncated or malformed streams. A prompt over the
// context window (llama.cpp answers it with 500), an exhausted quota (429
// insufficient_quota) and a model without tool support are not.
func retryable(err error) bool {
	if contextTooLong(err) || outOfQuota(err) || noToolSupport(err) || templateError(err) || maxTokensTooLarge(err) {
		return false // the same request fails the same way
	}
	if code, ok := statusOf(err); ok {
		return code == 408 || code == 429 || code >= 500
	}
	if transientStreamError(err) {
		return true
	}
	var ne net.Error
	var se *json.SyntaxError
	switch {
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrMalformedReply),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.As(err, &se), errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return false
}

// transientStreamError recognises an error event sent inside a stream that
// already answered 200 (OpenRouter, Anthropic's compatibility layer): it has
// no HTTP status, only a code or type naming overload or a server error.
func transientStreamError(err error) bool {
	var ae *openai.APIError
	if !errors.As(err, &ae) || ae.HTTPStatusCode != 0 {
		return false
	}
	switch code := ae.Code.(type) {
	case float64:
		if code == 429 || code >= 500 {
			return true
		}
	case string:
		if n, err := strconv.Atoi(code); err == nil && (n == 429 || n >= 500) {
			return true
		}
	}
	t := strings.ToLower(ae.Type)
	return strings.Contains(t, "overloaded") || strings.Contains(t, "server_error") || strings.Contains(t, "rate_limit")
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func isDNSError(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de)
}
