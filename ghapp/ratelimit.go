package ghapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/issuesmith/issuesmith/internal/clip"
)

// RateLimitError is GitHub refusing a request for a rate limit, in the one
// shape every caller sees, whatever GitHub answered: 403 or 429, the
// primary limit (X-RateLimit-Remaining 0 with X-RateLimit-Reset) or a
// secondary one (Retry-After, or only GitHub's message), or the transport's
// own pacing holding a request back before the limit is spent (Held). The
// transport returns it for every rate limit it does not sit out; RateLimitOf also
// finds it in go-github's own rate-limit errors.
type RateLimitError struct {
	Method, Path string
	// Status is GitHub's answer, 403 or 429 (0 when go-github refused
	// the request itself, remembering an earlier answer, or the request
	// was held back).
	Status int
	// Held is a request the transport did not send: the installation's
	// primary limit is down to its reserve (pace.go), until the reset.
	Held bool
	// Secondary is GitHub's secondary limit; otherwise the primary one.
	Secondary bool
	// Until is when GitHub allows the request again: the primary limit's
	// reset, now plus Retry-After, or a minute for a secondary limit that
	// names no time (GitHub's documented rules, in that order).
	Until time.Time
	// Message is GitHub's message, clipped.
	Message string
}

func (e *RateLimitError) Error() string {
	kind := "primary"
	if e.Secondary {
		kind = "secondary"
	}
	s := fmt.Sprintf("GitHub's %s rate limit", kind)
	if e.Held {
		s += " nearly spent"
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (%d)", e.Status)
	}
	if e.Method != "" {
		s += " on " + e.Method + " " + e.Path
	}
	s += "; allowed again at " + e.Until.UTC().Format(time.RFC3339)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// RateLimitOf returns the rate limit err is (or wraps): the transport's
// *RateLimitError, or go-github's RateLimitError and AbuseRateLimitError
// (go-github refuses a request itself while an earlier answer said the
// limit is spent) in the same shape. now is the clock a Retry-After counts
// from.
func RateLimitOf(err error, now time.Time) (*RateLimitError, bool) {
	var rl *RateLimitError
	var primary *github.RateLimitError
	var secondary *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl):
		return rl, true
	case errors.As(err, &primary):
		return &RateLimitError{Status: status(primary.Response), Until: primary.Rate.Reset.Time.Add(time.Second),
			Message: primary.Message}, true
	case errors.As(err, &secondary):
		until := now.Add(secondaryWait)
		if secondary.RetryAfter != nil {
			until = now.Add(*secondary.RetryAfter)
		}
		return &RateLimitError{Status: status(secondary.Response), Secondary: true, Until: until,
			Message: secondary.Message}, true
	}
	return nil, false
}

func status(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// secondaryMessages are the words of GitHub's documented secondary-limit
// messages ("You have exceeded a secondary rate limit", and the older
// "You have triggered an abuse detection mechanism"), lower case.
var secondaryMessages = []string{"secondary rate limit", "abuse detection"}

// rateLimit reads resp as GitHub's rate-limit answer, or nil when it is
// none. It is the one rule (GitHub's "Handle rate limit errors
// appropriately"): a 403 or 429 with Retry-After waits that long; with
// X-RateLimit-Remaining 0 until X-RateLimit-Reset; a secondary limit
// named only in the message at least a minute. A 429 is always a rate
// limit; a 403 with none of these signals is a permission refusal. The
// body is read and put back.
func rateLimit(resp *http.Response, now time.Time) *RateLimitError {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return nil
	}
	msg := peekMessage(resp)
	lower := strings.ToLower(msg)
	secondary := false
	for _, m := range secondaryMessages {
		secondary = secondary || strings.Contains(lower, m)
	}
	e := &RateLimitError{Status: resp.StatusCode, Secondary: secondary, Message: msg}
	if resp.Request != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	remaining := strings.TrimSpace(resp.Header.Get("X-RateLimit-Remaining"))
	reset := headerInt(resp.Header, "X-RateLimit-Reset", -1)
	switch {
	case retryAfter(resp.Header) >= 0:
		e.Until = now.Add(retryAfter(resp.Header))
		e.Secondary = e.Secondary || remaining != "0"
	case remaining == "0" && reset > 0:
		e.Until = time.Unix(int64(reset), 0).Add(time.Second) // one-second resolution
	case secondary || resp.StatusCode == http.StatusTooManyRequests:
		e.Until, e.Secondary = now.Add(secondaryWait), true
	case strings.Contains(lower, "rate limit"):
		// "API rate limit exceeded" without its headers: a minute.
		e.Until = now.Add(secondaryWait)
	default:
		return nil
	}
	return e
}

// retryAfter is Retry-After in seconds, or -1 when absent or not a number.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return -1
	}
	return time.Duration(n) * time.Second
}

// peekMessage reads GitHub's error message from resp's body (clipped),
// leaving the body to be read again.
func peekMessage(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) != nil || m.Message == "" {
		m.Message = string(body)
	}
	return clip.Bytes(strings.TrimSpace(m.Message), 300, "…")
}
