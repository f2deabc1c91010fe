package llamatest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
)

//go:embed server.mjs
var serverScript []byte

// Pinned npm packages: llama.cpp's binding with its prebuilt Linux x64
// binaries, and the table of GGUF chat templates. .ci/run installs them.
const (
	PackageBinding  = "@fugood/llama.node@1.7.15"
	PackageBinaries = "@fugood/node-llama-linux-x64@1.7.15"
	PackageTemplate = "@huggingface/ollama-utils@0.0.18"
)

// Engine is an installed llama.node: node and the npm prefix holding the
// packages above.
type Engine struct {
	Node, Prefix string
	script       string
}

// Find returns the installed engine, or skips the test with what to
// install; with ISSUESMITH_REQUIRE_LLAMA=1 (CI) a missing engine fails it.
// The prefix is ISSUESMITH_LLAMA_PREFIX, by default
// ~/.cache/issuesmith-llama, where .ci/run installs the packages.
func Find(tb testing.TB) *Engine {
	tb.Helper()
	prefix := os.Getenv("ISSUESMITH_LLAMA_PREFIX")
	if prefix == "" {
		home, _ := os.UserHomeDir()
		prefix = filepath.Join(home, ".cache", "issuesmith-llama")
	}
	missing := func(what string) {
		msg := fmt.Sprintf("llama.cpp engine not installed (%s); install it with: npm install --prefix %s %s %s %s",
			what, prefix, PackageBinding, PackageBinaries, PackageTemplate)
		if os.Getenv("ISSUESMITH_REQUIRE_LLAMA") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH")
	}
	for _, pkg := range []string{"@fugood/llama.node", "@fugood/node-llama-linux-x64", "@huggingface/ollama-utils"} {
		if _, err := os.Stat(filepath.Join(prefix, "node_modules", pkg, "package.json")); err != nil {
			missing(pkg + " missing under " + prefix)
		}
	}
	script := filepath.Join(tb.TempDir(), "server.mjs")
	if err := os.WriteFile(script, serverScript, 0o644); err != nil {
		tb.Fatal(err)
	}
	return &Engine{Node: node, Prefix: prefix, script: script}
}

// Templates returns the chat templates of the given sources (entries of
// @huggingface/ollama-utils' table, such as "library/qwen3:0.6b").
func (e *Engine) Templates(tb testing.TB, sources ...string) map[string]string {
	tb.Helper()
	cmd := exec.Command(e.Node, append([]string{e.script, e.Prefix, "templates"}, sources...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("read templates: %v: %s", err, stderr.String())
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		tb.Fatalf("read templates: %v", err)
	}
	return m
}

// Options configure a server.
type Options struct {
	// Context is n_ctx (default 32768).
	Context int
	// ForceTools answers every request that offers tools with a tool call
	// written under llama.cpp's own grammar for the template's format
	// (tool_choice "required" without the free text it allows first):
	// random weights then still write a call llama.cpp's parser reads.
	ForceTools bool
	// TextGrammar, a GBNF grammar, constrains every reply to a request
	// without tools or response_format: a random model then writes the
	// text protocol's actions.
	TextGrammar string
}

// Server is llama.cpp serving one GGUF over the OpenAI chat API on
// loopback (server.mjs), stopped at the test's cleanup.
type Server struct {
	URL    string
	mu     sync.Mutex
	stderr bytes.Buffer
}

// Start loads model and serves it until the test ends.
func (e *Engine) Start(tb testing.TB, model string, opts Options) *Server {
	tb.Helper()
	if opts.Context == 0 {
		opts.Context = 32768
	}
	force := "auto"
	if opts.ForceTools {
		force = "required"
	}
	cmd := exec.Command(e.Node, e.script, e.Prefix, "serve", model, fmt.Sprint(opts.Context), force, opts.TextGrammar)
	stdin, err := cmd.StdinPipe() // the server exits when this closes
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{}
	cmd.Stderr = lockedWriter{&s.mu, &s.stderr}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start llama.cpp server: %v", err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	port := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ready struct {
				Port int `json:"port"`
			}
			line := sc.Text()
			if strings.HasPrefix(line, `{"port":`) && json.Unmarshal([]byte(line), &ready) == nil {
				port <- ready.Port
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(port)
	}()
	select {
	case p, ok := <-port:
		if !ok {
			tb.Fatalf("llama.cpp server exited before serving: %s", s.Log())
		}
		s.URL = fmt.Sprintf("http://127.0.0.1:%d/v1", p)
	case <-time.After(60 * time.Second):
		tb.Fatalf("llama.cpp server did not start in 60s: %s", s.Log())
	}
	return s
}

// Log is what the server wrote to stderr (llama.cpp's log, errors).
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// Config is an llm.Config for the server: one model, no retries' sleeps.
func (s *Server) Config() llm.Config {
	return llm.Config{
		BaseURL: s.URL,
		Model:   "tiny",
		Timeout: 2 * time.Minute,
		Retry:   llm.RetryConfig{MaxAttempts: 1},
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
