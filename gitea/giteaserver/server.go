package giteaserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/gitea"
)

// Version is the Gitea release the tests run.
const Version = "1.26.0"

// Server is one running Gitea.
type Server struct {
	URL  string // root URL, with a trailing slash
	bin  string
	dir  string
	conf string
	t    testing.TB

	mu  sync.Mutex
	log strings.Builder
}

// Binary is the Gitea binary to run ("" when none): ISSUESMITH_GITEA_BIN,
// else gitea on PATH.
func Binary() string {
	if b := os.Getenv("ISSUESMITH_GITEA_BIN"); b != "" {
		return b
	}
	b, _ := exec.LookPath("gitea")
	return b
}

// Need skips t without a Gitea binary (fails it under
// ISSUESMITH_REQUIRE_GITEA=1) and returns the binary.
func Need(t testing.TB) string {
	t.Helper()
	b := Binary()
	if b == "" {
		if os.Getenv("ISSUESMITH_REQUIRE_GITEA") == "1" {
			t.Fatal("ISSUESMITH_REQUIRE_GITEA=1 but no Gitea binary: set ISSUESMITH_GITEA_BIN (.ci/run builds it)")
		}
		t.Skip("no Gitea binary (set ISSUESMITH_GITEA_BIN; .ci/run builds it)")
	}
	return b
}

// staticRoot is where Gitea finds its options (locales, templates of
// README and licences) when built without bindata: the module's source.
func staticRoot() string {
	if d := os.Getenv("ISSUESMITH_GITEA_STATIC"); d != "" {
		return d
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "code.gitea.io", "gitea@v"+Version)
}

// runUser is the user Gitea runs as (it refuses another RUN_USER): the
// process's own, by its user database entry ($USER may be unset in CI).
func runUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// Start runs Gitea until the test ends, with a site administrator "root".
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Need(t)
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d/", port), bin: bin, dir: dir, conf: filepath.Join(dir, "app.ini"), t: t}
	ini := fmt.Sprintf(appIni, runUser(), dir, port, s.URL, staticRoot())
	if err := os.WriteFile(s.conf, []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "web", "--config", s.conf, "--work-path", dir)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, s.env(), s, s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("gitea's output:\n%s", s.output())
		}
	})
	s.waitUp(done)
	s.cli("admin", "user", "create", "--username", "root", "--password", "root-password-1", "--email", "root@example.com",
		"--admin", "--must-change-password=false")
	return s
}

// Write collects Gitea's output (shown when the test fails).
func (s *Server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log.Len() < 1<<20 {
		s.log.Write(p)
	}
	return len(p), nil
}

func (s *Server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

func (s *Server) env() []string {
	return append(os.Environ(), "GITEA_WORK_DIR="+s.dir, "HOME="+s.dir)
}

// waitUp waits until the API answers (Gitea starts in about a second; a
// cold start migrates its database first).
func (s *Server) waitUp(done <-chan struct{}) {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			s.t.Fatalf("gitea exited at start:\n%s", s.output())
		default:
		}
		resp, err := http.Get(s.URL + "api/v1/version")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond) // another process's start: no event marks it
	}
	s.t.Fatalf("gitea did not answer within 90s:\n%s", s.output())
}

// cli runs a gitea command against this server's configuration.
func (s *Server) cli(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, append(args, "--config", s.conf, "--work-path", s.dir)...)
	cmd.Dir, cmd.Env = s.dir, s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("gitea %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// User makes a user with password "<login>-password-1" and returns an
// access token of theirs with scopes (e.g. "write:repository,write:issue").
func (s *Server) User(login, scopes string) string {
	s.t.Helper()
	s.cli("admin", "user", "create", "--username", login, "--password", login+"-password-1",
		"--email", login+"@example.com", "--must-change-password=false")
	return s.Token(login, scopes)
}

// Token makes another access token of login's with scopes.
func (s *Server) Token(login, scopes string) string {
	s.t.Helper()
	out := s.cli("admin", "user", "generate-access-token", "--username", login,
		"--token-name", fmt.Sprintf("t%d", time.Now().UnixNano()), "--scopes", scopes, "--raw")
	lines := strings.Fields(strings.TrimSpace(out))
	if len(lines) == 0 {
		s.t.Fatalf("gitea printed no token for %s", login)
	}
	return lines[len(lines)-1]
}

// Client is a client of this server with token.
func (s *Server) Client(token string) *gitea.Client {
	s.t.Helper()
	c, err := gitea.New(s.URL, token, gitea.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// Ctx is a context for a setup call.
func Ctx(t testing.TB) context.Context {
	if tc, ok := t.(interface{ Context() context.Context }); ok {
		return tc.Context()
	}
	return context.Background()
}
