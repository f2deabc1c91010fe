package giteatest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/routers"

	"github.com/issuesmith/issuesmith/internal/fakeapi"
	"github.com/issuesmith/issuesmith/internal/tb"
)

// Options configures a fake. Zero values get the defaults noted.
type Options struct {
	// Version answers GET /version ("1.26.0"; Forgejo says e.g.
	// "11.0.1+gitea-1.22.0").
	Version string
	// Now is the clock of created and updated times (time.Now).
	Now func() time.Time
}

// Fault makes the fake answer requests for Op ("METHOD /path/template" as
// in the description, without /api/v1: "GET /repos/{owner}/{repo}/issues/{index}")
// with Status, Header and Body instead of serving them, Times times (1 when
// 0; -1 forever). Faulted requests are still validated.
type Fault struct {
	Op     string
	Status int
	Header http.Header
	Body   string
	Times  int
}

// RateLimit is a 429 with Retry-After for op, as a proxy in front of Gitea
// (or Gitea's own limiter) answers.
func RateLimit(op string, retryAfter time.Duration, times int) Fault {
	return Fault{Op: op, Status: http.StatusTooManyRequests, Times: times,
		Header: http.Header{"Retry-After": {itoa(int(retryAfter / time.Second))}},
		Body:   `{"message":"rate limit exceeded"}`}
}

// Request is one request the fake received.
type Request struct {
	Method, Path string
	// Op is the description's operation, empty when none matched.
	Op     string
	User   string // the token's user, "" when none
	Status int
	Body   string
}

// Server is a fake Gitea. All methods are safe for concurrent use.
type Server struct {
	t    tb.TB
	opts Options
	srv  *httptest.Server
	rt   routers.Router

	closed  atomic.Bool
	changes fakeapi.Bell // wakes Wait after every request served

	mu       sync.Mutex // guards everything below
	faults   []*Fault
	requests []Request
	st       state
	refs     func(owner, name, ref string) string // SetRefResolver's
}

// New starts a fake Gitea on loopback and stops it when the test ends.
func New(t tb.TB, opts Options) *Server {
	t.Helper()
	if opts.Version == "" {
		opts.Version = "1.26.0"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{t: t, opts: opts, st: newState()}
	rt, err := newRouter("/api/v1")
	if err != nil {
		t.Fatalf("giteatest: %v", err)
	}
	s.rt = rt
	s.srv = httptest.NewServer(s)
	t.Cleanup(func() {
		s.closed.Store(true)
		s.srv.Close()
	})
	return s
}

// URL is the server's root URL, for gitea.New (the API is under /api/v1).
func (s *Server) URL() string { return s.srv.URL }

// Inject queues a fault; faults are matched in the order injected.
func (s *Server) Inject(f Fault) {
	if f.Times == 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls counts the requests received for op.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Op == op {
			n++
		}
	}
	return n
}

func (s *Server) failf(format string, args ...any) {
	if !s.closed.Load() {
		s.t.Errorf("giteatest: "+format, args...)
	}
}

// ServeHTTP validates, authenticates and serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: string(body)}
	resp := s.serve(r, body, &rec)
	rec.Status = resp.status
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	resp.write(w)
	s.changes.Ring()
}

func (s *Server) serve(r *http.Request, body []byte, rec *Request) response {
	joinRest(r)
	route, params, err := s.rt.FindRoute(r)
	if err != nil {
		s.failf("%s %s is not an operation of Gitea's API that the fake serves: %v", r.Method, r.URL.Path, err)
		return errorResp(http.StatusNotFound, "")
	}
	rec.Op = r.Method + " " + route.Path
	if err := fakeapi.CheckRequest(r.Context(), route, params, r, body); err != nil {
		s.failf("%s would be rejected by Gitea: %v", rec.Op, err)
		return errorResp(http.StatusUnprocessableEntity, err.Error())
	}
	for k, v := range params {
		if u, err := url.PathUnescape(v); err == nil {
			params[k] = u
		}
	}
	if f := s.takeFault(rec.Op); f != nil {
		return response{status: f.Status, header: f.Header, raw: []byte(f.Body)}
	}
	h, ok := handlers[rec.Op]
	if !ok {
		s.failf("%s has no handler in the fake", rec.Op)
		return errorResp(http.StatusNotImplemented, "not implemented by giteatest")
	}
	c := &call{s: s, r: r, body: body, params: params, op: rec.Op}
	s.mu.Lock()
	resp, ok := s.authorize(c)
	if ok {
		resp = h(c)
	}
	rec.User = c.user
	s.mu.Unlock()
	if resp.status < 300 && resp.raw == nil && resp.body != nil {
		data, _ := json.Marshal(resp.body)
		if err := fakeapi.CheckResponse(r.Context(), route, params, r, resp.status, jsonHeader, data); err != nil {
			s.failf("the fake answered %s with %d in a shape Gitea's description does not allow: %v", rec.Op, resp.status, err)
		}
	}
	return resp
}

// joinRest makes the path parameters that span slashes on Gitea (a raw
// file's path, a ref, a pull request's head branch) one escaped segment,
// as the router's parameters are.
func joinRest(r *http.Request) {
	parts := strings.Split(r.URL.EscapedPath(), "/") // "", api, v1, repos, o, r, kind, …
	if len(parts) < 9 || parts[3] != "repos" {
		return
	}
	join := func(from, to int) {
		rest := strings.Join(parts[from:to], "%2F")
		parts = append(append(parts[:from:from], rest), parts[to:]...)
	}
	switch kind := parts[6]; {
	case kind == "raw":
		join(7, len(parts))
	case kind == "commits" && parts[len(parts)-1] == "status":
		join(7, len(parts)-1)
	case kind == "pulls" && strings.Trim(parts[7], "0123456789") != "":
		join(8, len(parts))
	default:
		return
	}
	raw := strings.Join(parts, "/")
	if p, err := url.PathUnescape(raw); err == nil {
		r.URL.Path, r.URL.RawPath = p, raw
	}
}

func (s *Server) takeFault(op string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Op != op {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}

// call is one request being served; handlers run with s.mu held.
type call struct {
	s      *Server
	r      *http.Request
	body   []byte
	params map[string]string
	op     string
	user   string // the token's user
	repo   *repo  // the repository of /repos/{owner}/{repo} routes
}

func (c *call) param(name string) string { return c.params[name] }

func (c *call) intParam(name string) int {
	n, _ := atoiErr(c.params[name])
	return n
}

func (c *call) decode(v any) bool {
	if err := json.Unmarshal(c.body, v); err != nil {
		c.s.failf("%s: body does not decode: %v", c.op, err)
		return false
	}
	return true
}

// response is what a handler answers; body is marshalled unless raw is set.
type response struct {
	status int
	header http.Header
	body   any
	raw    []byte
	ctype  string
}

type obj = map[string]any

func ok(status int, body any) response { return response{status: status, body: body} }

// errorResp is Gitea's APIError: {"message", "url"}.
func errorResp(status int, msg string) response {
	return response{status: status, body: obj{"message": msg, "url": "http://localhost/api/swagger"}}
}

func (r response) write(w http.ResponseWriter) {
	for k, vs := range r.header {
		w.Header()[k] = vs
	}
	data := r.raw
	if data == nil && r.body != nil {
		data, _ = json.Marshal(r.body)
	}
	switch {
	case r.ctype != "":
		w.Header().Set("Content-Type", r.ctype)
	case len(data) > 0 && w.Header().Get("Content-Type") == "":
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(bytes.Clone(data))
}
