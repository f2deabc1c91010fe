package ghtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// response is what a handler answers; body is marshalled unless raw is set.
type response struct {
	status int
	header http.Header
	body   any
	raw    []byte
}

type obj = map[string]any

func ok(status int, body any) response { return response{status: status, body: body} }

func errorResp(status int, msg string) response {
	return response{status: status, body: obj{"message": msg, "documentation_url": "https://docs.github.com/rest"}}
}

func (r response) write(w http.ResponseWriter, s *Server) {
	for k, vs := range r.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if r.header == nil { // the App's own requests: a limit of their own, not counted
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "5000")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	}
	data := r.raw
	if data == nil && r.body != nil {
		data, _ = json.Marshal(r.body)
	}
	if len(data) > 0 && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(data)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// userObj renders a user; bots get type Bot.
func userObj(login string) obj {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return obj{"login": login, "id": idOf(login), "node_id": "U_" + login, "type": typ, "site_admin": false}
}

// idOf derives a stable numeric id from a login.
func idOf(login string) int64 {
	var h int64 = 7
	for _, c := range login {
		h = h*31 + int64(c)
	}
	if h < 0 {
		h = -h
	}
	return h%1_000_000 + 1
}

func (s *Server) apiURL(format string, args ...any) string {
	return s.srv.URL + fmt.Sprintf(format, args...)
}

// paginate slices items by per_page and page the way GitHub does and sets
// the Link header go-github follows.
func paginate[T any](c *call, items []T) ([]T, http.Header) {
	q := c.r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	start := min((page-1)*per, len(items))
	end := min(start+per, len(items))
	h := http.Header{}
	if end < len(items) {
		u := *c.r.URL
		u.Scheme, u.Host = "http", c.r.Host
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		h.Set("Link", fmt.Sprintf("<%s>; rel=\"next\"", u.String()))
	}
	return items[start:end], h
}

// list answers a paginated list with the fake's rate-limit headers.
func list[T any](c *call, items []T) response {
	page, h := paginate(c, items)
	if page == nil {
		page = []T{}
	}
	r := ok(http.StatusOK, page)
	if h.Get("Link") != "" {
		r.header = h
	}
	return r
}

func (c *call) decode(v any) bool {
	if err := json.Unmarshal(c.body, v); err != nil {
		c.fail("body does not decode: %v", err)
		return false
	}
	return true
}
