//go:build linux

package sandbox_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestEgress: a sandbox with no network of its own fetches a module
// through the bot's proxy from a fake upstream on an allowed host; a host
// not on the list and a POST are refused with the reason, and every
// request is logged with the run.
func TestEgress(t *testing.T) {
	t.Parallel()
	need(t)
	needGo(t)
	proxyDir := modProxy(t, "v1.0.0")
	var mu sync.Mutex
	var served []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(proxyDir)).ServeHTTP(w, r)
	}))
	defer upstream.Close()
	var logged []sandbox.EgressRequest
	// modproxy.test resolves to 127.0.0.1, which the proxy reaches only
	// because the exact address is listed too; port 80 there is the
	// upstream.
	eg := &sandbox.Egress{Hosts: append(sandbox.AllowHosts([]string{"modproxy.test", "*.example.org"}, []string{"modproxy.test"}), "127.0.0.1"),
		Run:     "run-42",
		Log:     func(r sandbox.EgressRequest) { mu.Lock(); logged = append(logged, r); mu.Unlock() },
		Resolve: resolveTo(map[string]string{"modproxy.test": "127.0.0.1"}),
		Dial:    dialPort(map[string]string{"127.0.0.1:80": upstream.Listener.Addr().String()})}
	caches := testCaches(t, proxyDir, sandbox.CacheOptions{})
	p := sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "egress", Egress: eg}
	get := func(host string) string {
		return "GOPROXY=http://" + host + " GOSUMDB=off GOMODCACHE=/tmp/m GOFLAGS=-mod=mod go mod download -json " + depPath + "@v1.0.0 2>&1"
	}
	out, err := runErr(t, p, t.TempDir(), get("modproxy.test"))
	if err != nil || !strings.Contains(out, `"Dir": "/tmp/m/example.com/dep@v1.0.0"`) {
		t.Fatalf("module not fetched through the proxy: %v\n%s", err, out)
	}
	out, err = runErr(t, p, t.TempDir(), get("evil.test"))
	if err == nil || !strings.Contains(out, "not on the allowlist") {
		t.Fatalf("a host not on the list was not refused with its reason: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("curl"); err == nil {
		out, _ = runErr(t, p, t.TempDir(), "curl -sS -X POST -d x http://modproxy.test/example.com/dep/@v/list")
		if !strings.Contains(out, "method POST is not allowed") {
			t.Errorf("a POST was not refused:\n%s", out)
		}
	}
	// Without egress the same fetch has no way out.
	out, err = runErr(t, sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "egress"}, t.TempDir(), get("modproxy.test"))
	if err == nil {
		t.Fatalf("a sandbox without egress fetched a module:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(served) == 0 || !strings.HasPrefix(served[0], "GET /example.com/dep/@v/") {
		t.Errorf("the upstream served %v", served)
	}
	var allowed, refused int
	for _, r := range logged {
		if r.Run != "run-42" {
			t.Errorf("logged without the run: %+v", r)
		}
		if r.Allowed {
			allowed++
		} else if strings.HasPrefix(r.Host, "evil.test") {
			refused++
		}
	}
	if allowed == 0 || refused == 0 {
		t.Errorf("log: %d allowed, %d refused to evil.test: %+v", allowed, refused, logged)
	}
}

// TestAllowHosts: the repository's hosts within the server's ceiling.
func TestAllowHosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ceiling, repo []string
		want          string
	}{
		{nil, []string{"proxy.golang.org"}, ""},
		{[]string{"proxy.golang.org"}, []string{"proxy.golang.org", "evil.com"}, "proxy.golang.org"},
		{[]string{"*.npmjs.org"}, []string{"registry.npmjs.org", "npmjs.org.evil.com"}, "registry.npmjs.org"},
		{[]string{"a.com", "b.com"}, []string{"*"}, "a.com,b.com"},
		{[]string{"*"}, []string{"x.io"}, "x.io"},
		// A "*" ceiling with a repository's "*" (or checks_network) is the
		// ceiling: every public host (it allowed nothing before).
		{[]string{"*"}, []string{"*"}, "*"},
		// A bare name is ports 443 and 80: it covers those, not others.
		{[]string{"a.com"}, []string{"a.com:443", "a.com:8443"}, "a.com:443"},
		{[]string{"a.com:8443"}, []string{"a.com", "a.com:8443"}, "a.com:8443"},
		{[]string{"*"}, []string{"x.io:22"}, ""},
		{[]string{"*:22"}, []string{"x.io:22"}, "x.io:22"},
		// An address only as itself.
		{[]string{"*", "10.0.0.5"}, []string{"10.0.0.5", "10.0.0.6"}, "10.0.0.5"},
	} {
		if got := strings.Join(sandbox.AllowHosts(tc.ceiling, tc.repo), ","); got != tc.want {
			t.Errorf("AllowHosts(%v, %v) = %q, want %q", tc.ceiling, tc.repo, got, tc.want)
		}
	}
}

// resolveTo is an Egress.Resolve answering names from m (an address each)
// and nothing else.
func resolveTo(m map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := m[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

// dialPort is an Egress.Dial that sends the addresses of m to their
// servers and dials the rest as they are.
func dialPort(m map[string]string) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := m[addr]; ok {
			addr = to
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}

// TestEgressDialsCheckedAddress: a name whose answer holds an address the
// rules refuse and one they allow is reached at the allowed address only,
// and the proxy dials addresses, never the name again (a second lookup is
// how DNS rebinding passes a check).
func TestEgressDialsCheckedAddress(t *testing.T) {
	t.Parallel()
	need(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("reached-the-listed-address\n"))
	}))
	defer upstream.Close()
	var mu sync.Mutex
	var dialed []string
	eg := &sandbox.Egress{Hosts: []string{"mixed.test", "127.0.0.2"}, Log: func(sandbox.EgressRequest) {},
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")}, nil
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, upstream.Listener.Addr().String())
		}}
	out, err := runErr(t, sandbox.Policy{Egress: eg}, t.TempDir(), "curl -sS http://mixed.test/ 2>&1")
	if err != nil || !strings.Contains(out, "reached-the-listed-address") {
		t.Fatalf("%v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(dialed, ",") != "127.0.0.2:80" {
		t.Errorf("the proxy dialed %v, want only 127.0.0.2:80", dialed)
	}
}
