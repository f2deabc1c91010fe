package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/server"
	"github.com/issuesmith/issuesmith/webhook"
)

// childEnv makes the test binary run `bot serve` (TestServeChild) instead
// of the tests: the end-to-end tests start the real server as a separate
// process, so they can kill it.
const childEnv = "ISSUESMITH_E2E_CHILD"

// TestServeChild is the server process of the end-to-end tests; without
// childEnv it does nothing. It is server.New and Run exactly as `bot
// serve` runs them, with GitHub write spacing off and fast job polling.
func TestServeChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("only runs as the end-to-end tests' server process")
	}
	cfg, err := config.LoadServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := installWriteHook(log); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tune := server.Tuning{GitHubWriteInterval: -1, PollInterval: 50 * time.Millisecond}
	if os.Getenv(fastRescueEnv) == "1" {
		tune.LeaseTTL, tune.RescueAfter = 3*time.Second, 5*time.Second
	}
	if at := os.Getenv(nowEnv); at != "" {
		now, err := time.Parse(time.RFC3339, at)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		tune.Now = func() time.Time { return now }
	}
	srv, err := server.New(ctx, cfg, log, tune)
	if err == nil {
		err = srv.Run(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

const (
	e2eOwner  = "Codertocat"
	e2eRepo   = "Hello-World"
	e2eSecret = "e2e-webhook-secret"
	e2eUser   = "Codertocat" // the sender of the octokit example payloads
)

// e2e is one end-to-end setup: fake GitHub, real git server, a model
// endpoint, and the server process.
type e2e struct {
	t     *testing.T
	gh    *ghtest.Server
	git   *gittest.Server
	env   []string
	addr  string
	issue int
	dir   string // the server's database and data directory
	bin   string // a bot binary to run as `bin serve` ("": TestServeChild)

	mu    sync.Mutex
	child *exec.Cmd
	logs  *bytes.Buffer
	seq   int
}

func newE2E(t *testing.T, modelURL string) *e2e {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: starts the server process")
	}
	e := &e2e{t: t, gh: ghtest.New(t, ghtest.Options{}), logs: &bytes.Buffer{}}
	// Git sits behind the fake GitHub's installation tokens: a request
	// passes only with a token the fake issued for this repository's
	// installation and has not expired, as git's x-access-token password.
	e.git = gittest.NewServer(t, gittest.WithRepoTokenCheck(func(name, tok string) bool {
		owner, repo, _ := strings.Cut(name, "/")
		return e.gh.ValidToken(owner, repo, tok)
	}))
	name := e2eOwner + "/" + e2eRepo
	url := e.git.Seed(t, name, map[string]string{
		"README.md": "# Hello\n\nA greeting library.\n",
		"greet.go":  "package greet\n\n// Hello returns a greeting.\nfunc Hello() string {\n\treturn \"hello\"\n}\n",
	})
	e.gh.AddRepo(ghtest.Repo{Owner: e2eOwner, Name: e2eRepo, CloneURL: url})
	e.gh.SetPermission(e2eOwner, e2eRepo, e2eUser, "write")
	e.issue = e.gh.AddIssue(e2eOwner, e2eRepo, ghtest.Issue{Title: "Greet people by name",
		Body: "Hello() should take the name of the person to greet.", User: e2eUser, Labels: []string{"issuesmith"}})
	key := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(key, e.gh.PrivateKey(), 0o600))
	e.addr = freeAddr(t)
	dir := t.TempDir()
	e.dir = dir
	e.env = append(os.Environ(), childEnv+"=1",
		"ISSUESMITH_APP_ID="+fmt.Sprint(e.gh.AppID()),
		"ISSUESMITH_PRIVATE_KEY_FILE="+key,
		"ISSUESMITH_WEBHOOK_SECRET="+e2eSecret,
		"ISSUESMITH_GITHUB_URL="+e.gh.URL(),
		"ISSUESMITH_BOT_LOGIN="+e.gh.BotLogin(),
		"ISSUESMITH_DATABASE_URL="+filepath.Join(dir, "issuesmith.db"),
		"ISSUESMITH_DATA_DIR="+filepath.Join(dir, "data"),
		"ISSUESMITH_LISTEN_ADDR="+e.addr,
		"ISSUESMITH_SHUTDOWN_TIMEOUT=5s",
		"ISSUESMITH_MODEL_BASE_URL="+modelURL,
		"ISSUESMITH_MODEL_NAME=test-model",
		"ISSUESMITH_MODEL_MAX_RETRIES=0",
		"ISSUESMITH_MODEL_INPUT_PRICE=1",
		"ISSUESMITH_MODEL_OUTPUT_PRICE=4",
	)
	t.Cleanup(func() {
		_ = e.stop()
		if t.Failed() || os.Getenv("ISSUESMITH_E2E_LOGS") == "1" {
			t.Logf("server logs:\n%s", e.logs)
		}
	})
	return e
}

// handedOut holds every address freeAddr gave in this test binary.
var handedOut sync.Map

// freeAddr returns a loopback address no other test of this binary got,
// below the kernel's ephemeral range. Every :0 bind (the fake GitHub, the
// scripted model, git's server) lands in that range: a port that a killed
// server gave back there could be taken by another parallel test's fake
// before the restarted server binds it again, and then the fake would
// answer the server's /readyz and take its deliveries.
func freeAddr(t *testing.T) string {
	low := ephemeralLow()
	for {
		port := 10000 + rand.IntN(low-10000)
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if _, dup := handedOut.LoadOrStore(addr, true); dup {
			continue
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken by another process
		}
		require.NoError(t, l.Close())
		return addr
	}
}

// ephemeralLow is the first port of the kernel's range for :0 binds
// (Linux's ip_local_port_range; 32768, its default, when unreadable).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				return n
			}
		}
	}
	return 32768
}

// start runs the server process and waits until /readyz answers 200.
func (e *e2e) start() {
	e.t.Helper()
	e.mu.Lock()
	if e.logs == nil {
		e.logs = &bytes.Buffer{}
	}
	e.mu.Unlock()
	e.child = e.launch("process start", e.addr, e.env)
	e.waitReady("server", e.addr)
}

// startReplica starts one more server process on the same settings but
// its own port (for a shared PostgreSQL database) and stops it at the end.
func (e *e2e) startReplica() string {
	e.t.Helper()
	addr := freeAddr(e.t)
	// Its own held-deliveries directory: each replica holds its own.
	cmd := e.launch("replica start", addr, append(append([]string{}, e.env...), "ISSUESMITH_LISTEN_ADDR="+addr,
		"ISSUESMITH_HOLD_DIR="+filepath.Join(e.dir, "held-"+strings.ReplaceAll(addr, ":", "-"))))
	e.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	e.waitReady("replica", addr)
	return addr
}

// launch starts the server process (TestServeChild of this test binary)
// with env, its output going to e.logs under a line naming what started.
func (e *e2e) launch(what, addr string, env []string) *exec.Cmd {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$")
	if e.bin != "" {
		cmd = exec.Command(e.bin, "serve")
	}
	cmd.Env = env
	e.mu.Lock()
	fmt.Fprintf(e.logs, "=== %s %s on %s\n", what, time.Now().Format(time.TimeOnly), addr)
	cmd.Stdout, cmd.Stderr = &lockedWriter{mu: &e.mu, w: e.logs}, &lockedWriter{mu: &e.mu, w: e.logs}
	e.mu.Unlock()
	require.NoError(e.t, cmd.Start())
	return cmd
}

// waitReady waits until the server at addr answers /readyz with 200.
func (e *e2e) waitReady(who, addr string) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond, who+" did not become ready")
}

// kill ends the server process the hard way (SIGKILL): no shutdown at all.
func (e *e2e) kill() {
	e.t.Helper()
	require.NoError(e.t, e.child.Process.Kill())
	_ = e.child.Wait()
	e.child = nil
}

// stop ends the server process gracefully (SIGTERM) if it runs and returns
// how it exited.
func (e *e2e) stop() error {
	if e.child == nil {
		return nil
	}
	_ = e.child.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- e.child.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		_ = e.child.Process.Kill()
		err = fmt.Errorf("no exit 15s after SIGTERM: %v", <-done)
	}
	e.child = nil
	return err
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// deliver sends a webhook delivery built from an octokit example payload
// (webhook/testdata), patched by set, signed with the App's secret.
func (e *e2e) deliver(event, example string, set func(p map[string]any)) int {
	e.t.Helper()
	e.seq++
	id := fmt.Sprintf("e2e-%s-%d-%d", event, e.seq, time.Now().UnixNano())
	return e.deliverAs(event, example, id, e2eSecret, set)
}

// deliverAs is deliver with the delivery id and signing secret given.
func (e *e2e) deliverAs(event, example, delivery, secret string, set func(p map[string]any)) int {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(e.deliveryRequest(event, example, delivery, secret, set))
	require.NoError(e.t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// deliveryRequest is the signed webhook request deliverAs sends.
func (e *e2e) deliveryRequest(event, example, delivery, secret string, set func(p map[string]any)) *http.Request {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", example))
	require.NoError(e.t, err)
	var p map[string]any
	require.NoError(e.t, json.Unmarshal(raw, &p))
	p["installation"] = map[string]any{"id": e.gh.Installation(), "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
	set(p)
	body, err := json.Marshal(p)
	require.NoError(e.t, err)
	req, err := http.NewRequest(http.MethodPost, "http://"+e.addr+"/webhook", bytes.NewReader(body))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(secret), body))
	return req
}

func obj(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

func (e *e2e) labelIssue() int {
	return e.deliver("issues", "issues.labeled.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		obj(p, "label")["name"] = "issuesmith"
	})
}

// botComments returns the bot's issue comments by marker kind.
func (e *e2e) botComments() map[string][]ghtest.Comment {
	out := map[string][]ghtest.Comment{}
	for _, c := range e.gh.Comments(e2eOwner, e2eRepo, e.issue) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == e.gh.BotLogin() {
			out[m.Kind] = append(out[m.Kind], c)
		}
	}
	return out
}

func (e *e2e) progress() string {
	if c := e.botComments()["progress"]; len(c) > 0 {
		return c[len(c)-1].Body
	}
	return ""
}

func (e *e2e) waitProgress(want string) {
	e.t.Helper()
	e.await(60*time.Second, func() bool { return strings.Contains(e.progress(), want) },
		"progress comment never said %q; last:\n%s", want, e.progress)
}

// await waits until cond, which reads the fake GitHub, holds: it is checked
// each time the fake answered a request (ghtest.Server.Wait), never on a
// timer. The message's arguments may be funcs returning a string, called
// only when it failed (the state then).
func (e *e2e) await(timeout time.Duration, cond func() bool, msg string, args ...any) {
	e.t.Helper()
	if e.gh.Wait(timeout, cond) {
		return
	}
	for i, a := range args {
		if f, ok := a.(func() string); ok {
			args[i] = f()
		}
	}
	e.t.Fatalf("not within %s: "+msg, append([]any{timeout}, args...)...)
}

// modelURL serves the script (or the given handler) as the model endpoint.
func scriptedModel(t *testing.T, path string) *llmtest.Server {
	return llmtest.NewServer(t, llmtest.LoadScript(t, path))
}
