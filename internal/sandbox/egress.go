package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// Methods), HTTPS as CONNECT tunnels (the method inside TLS is not seen),
// each to an allowed host and port. It resolves a name once, refuses
// loopback, private, link-local, multicast, unspecified, reserved and
// cloud-metadata addresses unless an entry names that exact address, and
// dials the address it checked (egress_rules.go). Every request, allowed
// or not, is logged with the run.
type Egress struct {
	// Hosts are "host" (ports 443 and 80), "host:port" (that port),
	// "*.domain" (its subdomains, 443 and 80), "*" (every public host, 443
	// and 80), "*:port", or an IP address ("10.0.0.5", "fd00::1",
	// "[fd00::1]:8080"), the only way to reach an address that is not
	// public. AllowHosts makes them from the server's ceiling and the
	// repository's file.
	Hosts []string
	// Methods are plain-HTTP methods allowed besides GET and HEAD.
	Methods []string
	// Run names the run in the log lines.
	Run string
	// Log receives each request; nil logs it with slog.
	Log func(EgressRequest)
	// Resolve gives a name's addresses; nil is the system's resolver
	// (tests map names to the addresses they need).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial reaches a checked address ("ip:port"); nil is a net.Dialer
	// (tests map ports to their loopback servers).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// EgressRequest is one request through the proxy.
type EgressRequest struct {
	Run, Method, Host string
	Allowed           bool
	Reason            string // why it was refused
}

// AllowHosts is the repository's hosts that the server's ceiling covers:
// an entry of the ceiling covers the same host pattern with the ports it
// allows (an entry without a port allows 443 and 80), "*.d" covers d's
// subdomains, "*" covers every host; a repository's "*" (the deprecated
// checks_network) asks for the whole ceiling. The default ceiling (none)
// allows nothing.
func AllowHosts(ceiling, repo []string) []string {
	var out []string
	for _, r := range repo {
		r = strings.ToLower(strings.TrimSpace(r))
		if r == "*" {
			for _, c := range ceiling {
				if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
					out = append(out, c)
				}
			}
			continue
		}
		re, ok := parseEntry(r)
		if !ok {
			continue
		}
		for _, c := range ceiling {
			if ce, ok := parseEntry(c); ok && ce.covers(re) {
				out = append(out, r)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (e *Egress) allows() bool { return e != nil && len(e.Hosts) > 0 }

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
	host, portStr, err := net.SplitHostPort(hostport)
	port, perr := strconv.Atoi(portStr)
	if err != nil || perr != nil {
		req.Reason = "want host:port, got " + hostport
		p.refuse(w, req, http.StatusBadRequest)
		return
	}
	if why := p.e.egressCheck(host, port); why != "" {
		req.Reason = why
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

// upstreamFailed answers a dial the rules refused with 403 and the
// reason, any other failure with 502.
func (p *proxy) upstreamFailed(w http.ResponseWriter, req EgressRequest, err error) {
	var ref *refusal
	if errors.As(err, &ref) {
		req.Reason = ref.reason
		p.refuse(w, req, http.StatusForbidden)
		return
	}
	req.Reason = "upstream: " + err.Error()
	p.refuse(w, req, http.StatusBadGateway)
}

// forward passes one plain-HTTP request on and copies the answer back.
func (p *proxy) forward(w http.ResponseWriter, r *http.Request, req EgressRequest) {
	p.tr.Do(func() {
		p.rt = &http.Transport{DialContext: p.e.dialChecked, Proxy: nil, ResponseHeaderTimeout: 2 * time.Minute}
	})
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		p.upstreamFailed(w, req, err)
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
	up, err := p.e.dialChecked(r.Context(), "tcp", req.Host)
	if err != nil {
		p.upstreamFailed(w, req, err)
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
