package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Egress is a sandbox's way out, by allowlist. The sandbox keeps no
// network of its own (bwrap --unshare-net: only its loopback); the bot
// runs an HTTP proxy on a unix socket that is bound into the sandbox, and
// a tiny bridge (this binary, run inside as the command's parent: see
// bridge.go) listens on the sandbox's loopback, passes each connection to
// that socket and points HTTP_PROXY/HTTPS_PROXY at itself. The proxy lets
// through only requests to Hosts: plain HTTP with GET and HEAD (or
// Methods), HTTPS as CONNECT tunnels (the method inside TLS is not seen);
// every request, allowed or not, is logged with the run.
type Egress struct {
	// Hosts are "host", "host:port" or "*.domain" entries; AllowHosts
	// makes them from the server's ceiling and the repository's file.
	Hosts []string
	// Methods are plain-HTTP methods allowed besides GET and HEAD.
	Methods []string
	// Run names the run in the log lines.
	Run string
	// Log receives each request; nil logs it with slog.
	Log func(EgressRequest)
	// Dial reaches an upstream; nil is a net.Dialer (tests map names to
	// their loopback servers).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// EgressRequest is one request through the proxy.
type EgressRequest struct {
	Run, Method, Host string
	Allowed           bool
	Reason            string // why it was refused
}

// AllowHosts is the repository's hosts that the server's ceiling covers:
// an entry of the ceiling covers the same entry, "*.d" covers d's
// subdomains, "*" covers every host; a repository's "*" (the deprecated
// checks_network) asks for the whole ceiling. The default ceiling (none)
// allows nothing.
func AllowHosts(ceiling, repo []string) []string {
	var out []string
	for _, r := range repo {
		r = strings.ToLower(strings.TrimSpace(r))
		if r == "*" {
			out = append(out, ceiling...)
			continue
		}
		for _, c := range ceiling {
			c = strings.ToLower(strings.TrimSpace(c))
			if c == "*" || c == r || (strings.HasPrefix(c, "*.") && strings.HasSuffix(strings.TrimPrefix(r, "*"), c[1:])) {
				out = append(out, r)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (e *Egress) allows() bool { return e != nil && len(e.Hosts) > 0 }

// allowed reports whether hostport ("host:port") is on the list.
func (e *Egress) allowed(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host, hostport = strings.ToLower(host), strings.ToLower(hostport)
	for _, h := range e.Hosts {
		switch {
		case h == host || h == hostport:
			return true
		case strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]):
			return true
		}
	}
	return false
}

// Where the bridge finds itself and the proxy inside the sandbox.
const (
	bridgeExe  = "/run/issuesmith/bridge"
	bridgeSock = "/run/issuesmith/egress.sock"
	bridgeVar  = "ISSUESMITH_SANDBOX_BRIDGE"
)

// start runs the proxy on a fresh unix socket and returns its stop, the
// bwrap arguments binding it and this binary in, and the bridge's variable.
func (e *Egress) start(repo string) (func(), []string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox egress: %w", err)
	}
	dir, err := os.MkdirTemp("", "issuesmith-egress-")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox egress: %w", err)
	}
	sock := filepath.Join(dir, "egress.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, nil, fmt.Errorf("sandbox egress: %w", err)
	}
	run := e.Run
	if run == "" {
		run = repo
	}
	srv := &http.Server{Handler: &proxy{e: e, run: run}, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		_ = srv.Close()
		_ = os.RemoveAll(dir)
	}
	args := []string{"--ro-bind", exe, bridgeExe, "--bind", sock, bridgeSock}
	return stop, args, []string{bridgeVar + "=" + bridgeSock}, nil
}

// proxy is the bot's side of Egress.
type proxy struct {
	e   *Egress
	run string
	tr  sync.Once
	rt  *http.Transport
}

func (p *proxy) log(r EgressRequest) {
	r.Run = p.run
	if p.e.Log != nil {
		p.e.Log(r)
		return
	}
	slog.Info("sandbox egress", "run", r.Run, "method", r.Method, "host", r.Host, "allowed", r.Allowed, "reason", r.Reason)
}

func (p *proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if p.e.Dial != nil {
		return p.e.Dial(ctx, network, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (p *proxy) refuse(w http.ResponseWriter, req EgressRequest, code int) {
	p.log(req)
	http.Error(w, "issuesmith egress: "+req.Reason, code)
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hostport := r.Host
	if r.Method != http.MethodConnect {
		hostport = r.URL.Host
		if r.URL.Scheme != "http" || hostport == "" {
			p.refuse(w, EgressRequest{Method: r.Method, Host: hostport, Reason: "only absolute http:// requests and CONNECT go through this proxy"}, http.StatusBadRequest)
			return
		}
		if r.URL.Port() == "" {
			hostport = net.JoinHostPort(r.URL.Hostname(), "80")
		}
	}
	req := EgressRequest{Method: r.Method, Host: hostport}
	if !p.e.allowed(hostport) {
		req.Reason = fmt.Sprintf("host %s is not on the allowlist (the server's ISSUESMITH_EGRESS_HOSTS and the repository's egress.hosts must both name it)", hostport)
		p.refuse(w, req, http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, req)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !slices.Contains(p.e.Methods, r.Method) {
		req.Reason = fmt.Sprintf("method %s is not allowed (GET and HEAD only, unless egress.methods names it)", r.Method)
		p.refuse(w, req, http.StatusMethodNotAllowed)
		return
	}
	p.forward(w, r, req)
}

// forward passes one plain-HTTP request on and copies the answer back.
func (p *proxy) forward(w http.ResponseWriter, r *http.Request, req EgressRequest) {
	p.tr.Do(func() {
		p.rt = &http.Transport{DialContext: p.dial, Proxy: nil, ResponseHeaderTimeout: 2 * time.Minute}
	})
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		req.Reason = "upstream: " + err.Error()
		p.refuse(w, req, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	req.Allowed = true
	p.log(req)
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// tunnel connects a CONNECT request to its upstream and splices the two.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request, req EgressRequest) {
	up, err := p.dial(r.Context(), "tcp", req.Host)
	if err != nil {
		req.Reason = "upstream: " + err.Error()
		p.refuse(w, req, http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	req.Allowed = true
	p.log(req)
	_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	splice(conn, up, buf)
}

// splice copies both ways until either side ends.
func splice(a, b net.Conn, abuf io.Reader) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, abuf); done <- struct{}{} }()
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	<-done
	a.Close()
	b.Close()
	<-done
}
