package ghtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// AnyOp as a Fault's Op matches every request made with an installation
// token (every operation but the App's own /app ones): the installation's
// limit is spent for all of them at once, as on GitHub.
const AnyOp = "*"

// GitHub's documented rate-limit messages.
const (
	primaryMessage   = "API rate limit exceeded for installation ID %d."
	secondaryMessage = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
		"If you reach out to GitHub Support for help, please include the request ID 0401:2C8F:1D1B2E:3A4B5C:6675F1E2."
	primaryDocs   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	secondaryDocs = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)

// window is an installation's primary rate limit in the current hour, as
// GitHub counts it: every request made with the installation's token uses
// one, and once none remain every request is refused until the reset.
type window struct {
	limit, used int
	reset       time.Time // whole seconds, as GitHub sends it
}

// defaultLimit is an installation's primary limit (GitHub's least).
const defaultLimit = 5000

// SetRateLimit sets installation's primary limit for the current window:
// limit requests an hour, remaining of them left until reset. Each request
// made with the installation's token then uses one and is answered with
// the window's X-RateLimit-* headers; once none remain, the answer is
// GitHub's 403 for a spent primary limit until reset, when a new window of
// limit requests an hour begins. Without it an installation has 5,000 an
// hour from its first request.
func (s *Server) SetRateLimit(installation int64, limit, remaining int, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.rate[installation] = &window{limit: limit, used: limit - remaining, reset: reset.Truncate(time.Second)}
}

// charge uses one of installation's requests and returns its window, and
// false when none was left (s.mu held).
func (st *state) charge(installation int64, now time.Time) (*window, bool) {
	w := st.rate[installation]
	switch {
	case w == nil:
		w = &window{limit: defaultLimit}
		st.rate[installation] = w
		fallthrough
	case !now.Before(w.reset):
		w.used, w.reset = 0, now.Add(time.Hour).Truncate(time.Second)
	}
	if w.used >= w.limit {
		return w, false
	}
	w.used++
	return w, true
}

// header sets the window's X-RateLimit-* headers on h (made when nil).
func (w *window) header(h http.Header) http.Header {
	if h == nil {
		h = http.Header{}
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(w.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(w.limit-w.used, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(min(w.used, w.limit)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(w.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	return h
}

// spent is GitHub's answer to a request over installation's spent window.
func spent(installation int64, w *window) response {
	body := `{"message":"` + strings.Replace(primaryMessage, "%d", strconv.FormatInt(installation, 10), 1) +
		`","documentation_url":"` + primaryDocs + `"}`
	return response{status: http.StatusForbidden, header: w.header(nil), raw: []byte(body)}
}

// PrimaryLimit is GitHub's answer when the installation's primary limit is
// spent, status 403 or 429: X-RateLimit-Remaining 0, the reset as Unix
// seconds, the used and resource headers and GitHub's message, Times
// times (-1: any number) until the reset.
func (s *Server) PrimaryLimit(op string, status int, reset time.Time, times int) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Used", "5000")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	body := `{"message":"` + strings.Replace(primaryMessage, "%d", strconv.FormatInt(s.opts.Installation, 10), 1) +
		`","documentation_url":"` + primaryDocs + `"}`
	return Fault{Op: op, Status: status, Header: h, Body: body, Times: times, Until: reset}
}

// SecondaryLimit is GitHub's answer to a request over a secondary limit,
// status 403 or 429, with Retry-After when retryAfter is not negative
// (GitHub sends it only sometimes; the fault then ends after it) and the
// primary limit not spent.
func (s *Server) SecondaryLimit(op string, status int, retryAfter time.Duration, times int) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4990")
	h.Set("X-RateLimit-Used", "10")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	var until time.Time
	if retryAfter >= 0 {
		h.Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
		until = time.Now().Add(retryAfter)
	}
	body := `{"message":"` + secondaryMessage + `","documentation_url":"` + secondaryDocs + `"}`
	return Fault{Op: op, Status: status, Header: h, Body: body, Times: times, Until: until}
}

// matches reports whether f answers op.
func (f *Fault) matches(op string) bool {
	if f.Op == AnyOp {
		_, path, _ := strings.Cut(op, " ")
		return path != "/app" && !strings.HasPrefix(path, "/app/")
	}
	return f.Op == op
}
