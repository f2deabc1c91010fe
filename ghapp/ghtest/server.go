package ghtest

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
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
	// AppID is the App's id (1).
	AppID int64
	// Slug is the App's slug (issuesmith); its bot is "slug[bot]".
	Slug string
	// Installation is the default installation id of repositories (42).
	Installation int64
	// TokenTTL is how long installation tokens live (1h, as on GitHub).
	TokenTTL time.Duration
	// Now is the clock installation tokens are issued and expire by
	// (time.Now): a test of their lifetime moves it instead of sleeping.
	Now func() time.Time
}

// Fault makes the fake answer requests for Op ("METHOD /path/template" as
// in the description, e.g. "GET /repos/{owner}/{repo}/collaborators/{username}/permission";
// AnyOp for every installation request; PrimaryLimit and SecondaryLimit
// make GitHub's rate-limit answers)
// with Status, Header and Body instead of serving them, Times times
// (1 when 0; -1 forever). Faulted requests are still validated.
type Fault struct {
	Op     string
	Status int
	Header http.Header
	Body   string
	Times  int
	// Until, when set, ends the fault at that time (as a rate limit's
	// reset does) whatever Times says.
	Until time.Time
}

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string
	// Op is the description's operation ("POST /repos/{owner}/{repo}/pulls"),
	// empty when no operation matched.
	Op     string
	Status int
	Body   string
}

// Server is a fake GitHub. All methods are safe for concurrent use.
type Server struct {
	t    tb.TB
	opts Options
	srv  *httptest.Server
	rt   routers.Router
	key  *rsa.PrivateKey
	pem  []byte

	closed  atomic.Bool  // set when the test ended: no more failures reported
	changes fakeapi.Bell // wakes Wait after every request served

	mu       sync.Mutex // guards everything below
	faults   []*Fault
	requests []Request
	served   []servedHook
	servedN  int
	st       state
}

// New starts a fake GitHub on loopback and stops it when the test ends.
func New(t tb.TB, opts Options) *Server {
	t.Helper()
	if opts.AppID == 0 {
		opts.AppID = 1
	}
	if opts.Slug == "" {
		opts.Slug = "issuesmith"
	}
	if opts.Installation == 0 {
		opts.Installation = 42
	}
	if opts.TokenTTL == 0 {
		opts.TokenTTL = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	key, pem := appKey(t)
	s := &Server{t: t, opts: opts, key: key, pem: pem, st: newState()}
	s.srv = httptest.NewUnstartedServer(s)
	rt, err := newRouter("http://" + s.srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("ghtest: %v", err)
	}
	s.rt = rt
	s.srv.Start()
	t.Cleanup(func() {
		s.closed.Store(true)
		s.srv.Close()
	})
	return s
}

// now is the tokens' clock (Options.Now).
func (s *Server) now() time.Time { return s.opts.Now() }

// URL is the API root to give ghapp.AppConfig.BaseURL (with a trailing slash).
func (s *Server) URL() string { return s.srv.URL + "/" }

// AppID is the App's id.
func (s *Server) AppID() int64 { return s.opts.AppID }

// PrivateKey is the App's PEM private key; the fake checks JWTs against it.
func (s *Server) PrivateKey() []byte { return s.pem }

// BotLogin is the App's bot user, "slug[bot]".
func (s *Server) BotLogin() string { return s.opts.Slug + "[bot]" }

// Installation is the default installation id.
func (s *Server) Installation() int64 { return s.opts.Installation }

// Inject queues a fault. Faults are matched in the order injected.
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

// Calls counts the requests received for op ("METHOD /path/template").
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

// failf fails the owning test unless it has already ended.
func (s *Server) failf(format string, args ...any) {
	if !s.closed.Load() {
		s.t.Errorf("ghtest: "+format, args...)
	}
}

// ServeHTTP validates, authenticates and serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, blobPrefix):
		s.serveBlob(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/login/oauth/") || r.URL.Path == "/login" || r.URL.Path == "/favicon.ico":
		rec := Request{Method: r.Method, Path: r.URL.Path, Op: r.Method + " " + r.URL.Path, Body: string(body)}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec.Status = s.serveOAuth(w, r)
		s.record(rec)
		return
	case r.URL.Path == "/graphql":
		rec := Request{Method: r.Method, Path: r.URL.Path, Op: "POST /graphql", Body: string(body)}
		rec.Status = s.serveGraphQL(w, r, body)
		s.record(rec)
		return
	}
	escapeContentsPath(r)
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: string(body)}
	resp := s.serve(r, body, &rec)
	rec.Status = resp.status
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	s.runServed(rec)
	resp.write(w, s)
	s.changes.Ring()
}

// record keeps a request served outside the REST path and wakes Wait.
func (s *Server) record(rec Request) {
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	s.changes.Ring()
}

// servedHook is one OnServed registration.
type servedHook struct {
	id int
	op string
	fn func(Request) bool
}

// OnServed calls fn after each successful (2xx) request for op has changed
// the fake's state and before its answer is written — the moment to kill
// the client (a crash after GitHub acted but before the bot learned it).
// fn returning true removes it.
func (s *Server) OnServed(op string, fn func(Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.servedN++
	s.served = append(s.served, servedHook{id: s.servedN, op: op, fn: fn})
}

func (s *Server) runServed(rec Request) {
	if rec.Status >= 300 {
		return
	}
	s.mu.Lock()
	var hooks []servedHook
	for _, h := range s.served {
		if h.op == rec.Op {
			hooks = append(hooks, h)
		}
	}
	s.mu.Unlock()
	for _, h := range hooks {
		if !h.fn(rec) {
			continue
		}
		s.mu.Lock()
		s.served = slices.DeleteFunc(s.served, func(x servedHook) bool { return x.id == h.id })
		s.mu.Unlock()
	}
}

func (s *Server) serve(r *http.Request, body []byte, rec *Request) response {
	route, params, err := s.rt.FindRoute(r)
	if err != nil {
		s.failf("%s %s is not an operation of GitHub's REST API that the fake serves: %v", r.Method, r.URL.Path, err)
		return errorResp(http.StatusNotFound, "Not Found")
	}
	rec.Op = r.Method + " " + route.Path
	if err := fakeapi.CheckRequest(r.Context(), route, params, r, body); err != nil {
		s.failf("%s would be rejected by GitHub: %v", rec.Op, err)
		return errorResp(http.StatusUnprocessableEntity, "Validation Failed: "+err.Error())
	}
	if err := checkBodyLimit(body); err != nil {
		s.failf("%s would be rejected by GitHub: %v", rec.Op, err)
		return errorResp(http.StatusUnprocessableEntity, "Validation Failed: "+err.Error())
	}
	if f := s.takeFault(rec.Op); f != nil {
		return response{status: f.Status, header: f.Header, raw: []byte(f.Body)}
	}
	h, ok := handlers[rec.Op]
	if !ok && userOps[rec.Op] == nil {
		s.failf("%s has no handler in the fake", rec.Op)
		return errorResp(http.StatusNotImplemented, "not implemented by ghtest")
	}
	c := &call{s: s, r: r, body: body, params: params, op: rec.Op}
	if resp, ok := s.authenticate(c); !ok {
		return resp
	}
	if c.user != "" {
		h = userOps[c.op]
	}
	s.mu.Lock()
	resp := h(c)
	if w := s.st.rate[c.installation]; c.installation != 0 && w != nil {
		resp.header = w.header(resp.header)
	}
	s.mu.Unlock()
	if resp.status < 300 { // error answers already failed the test
		if resp.body != nil {
			resp.body = complete(responseSchema(route, resp.status), roundTrip(resp.body))
		}
		s.checkResponse(c, route, resp)
	}
	return resp
}

// roundTrip turns a handler's value into plain JSON data (maps, slices) that
// complete can fill in.
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// checkResponse fails the test when the fake answered in a shape GitHub's
// description does not allow: the fake must not teach the code under test
// anything GitHub would not send.
func (s *Server) checkResponse(c *call, route *routers.Route, resp response) {
	body := resp.raw
	if body == nil && resp.body != nil {
		body, _ = json.Marshal(resp.body)
	}
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	if err := fakeapi.CheckResponse(c.r.Context(), route, c.params, c.r, resp.status, h, body); err != nil {
		s.failf("the fake answered %s with %d in a shape GitHub does not: %v", c.op, resp.status, err)
	}
}

func (s *Server) takeFault(op string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if !f.Until.IsZero() && !time.Now().Before(f.Until) {
			continue
		}
		if !f.matches(op) {
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

// escapeContentsPath turns /repos/o/r/contents/a/b into .../contents/a%2Fb:
// GitHub's {path} spans slashes, the router's parameters do not.
func escapeContentsPath(r *http.Request) {
	p := r.URL.Path
	parts := strings.SplitN(p, "/", 6) // "", repos, o, r, contents, rest
	if len(parts) == 6 && parts[1] == "repos" && parts[4] == "contents" && strings.Contains(parts[5], "/") {
		r.URL.RawPath = strings.Join(parts[:5], "/") + "/" + url.PathEscape(parts[5])
	}
}

// call is one authenticated request being served; handlers run with s.mu held.
type call struct {
	s      *Server
	r      *http.Request
	body   []byte
	params map[string]string
	op     string
	// installation is the token's installation; 0 for App (JWT) calls.
	installation int64
	// user is the person a user token belongs to ("" otherwise).
	user string
}

func (c *call) param(name string) string { return c.params[name] }

// fail reports a request the fake serves but GitHub would refuse (a state
// conflict the description cannot see); the handler answers with an error.
func (c *call) fail(format string, args ...any) { c.s.failf(c.op+": "+format, args...) }
