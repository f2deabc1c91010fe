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
