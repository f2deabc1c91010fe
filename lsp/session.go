package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// Options configure a Session. Zero values take the defaults.
type Options struct {
	// Settle is how long no new publication must come before the
	// diagnostics count as final (default 500ms).
	Settle time.Duration
	// Wait bounds one Diagnostics call (default 20s: a first call also
	// waits for the server to load the workspace).
	Wait time.Duration
	// Start bounds starting and initializing a server (default 30s).
	Start time.Duration
	// Sandbox, when set, runs the servers under bubblewrap with this
	// policy plus the server's install folder read-only, when the host has
	// bubblewrap; without it they run with the scrubbed environment only.
	Sandbox *sandbox.Policy
	// Env is the servers' environment before scrubbing (default the
	// process's).
	Env []string
	// Servers replaces the known servers (default Servers).
	Servers []Server
	// Log receives the one line a server's failure is worth.
	Log func(format string, args ...any)
}

// Diagnostic is one error a server reported in a file.
type Diagnostic struct {
	Path    string `json:"path"` // slash path relative to the root
	Line    int    `json:"line"` // 1-based
	Col     int    `json:"col"`  // 1-based, in UTF-16 units as the server counts
	Message string `json:"message"`
	Source  string `json:"source,omitempty"` // e.g. "compiler", "ts", "Pyright"
	Code    string `json:"code,omitempty"`
}

// String renders "path:line:col: message".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", d.Path, d.Line, d.Col, d.Message)
}

// Session is the language servers of one worktree.
type Session struct {
	root string
	opts Options

	mu      sync.Mutex
	clients map[string]*client // by server command
	dead    map[string]bool    // servers that failed: not tried again
	ctx     context.Context
	cancel  context.CancelFunc
}

// NewSession returns a Session for the worktree at root. Servers start on
// first use; Close stops them.
func NewSession(root string, opts Options) *Session {
	if opts.Settle <= 0 {
		opts.Settle = 500 * time.Millisecond
	}
	if opts.Wait <= 0 {
		opts.Wait = 20 * time.Second
	}
	if opts.Start <= 0 {
		opts.Start = 30 * time.Second
	}
	if opts.Env == nil {
		opts.Env = procenv.Scrubbed()
	}
	if opts.Servers == nil {
		opts.Servers = Servers
	}
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{root: root, opts: opts, clients: map[string]*client{}, dead: map[string]bool{}, ctx: ctx, cancel: cancel}
}

// Errors returns the error diagnostics of the file at path (slash, relative
// to the root) as it is on disk now. ok is false when no server answered
// for it (no server for the language, missing, crashed or too slow): then
// there are no diagnostics to compare, which is never an error.
func (s *Session) Errors(ctx context.Context, path string) (ds []Diagnostic, ok bool) {
	srv, known := serverFor(s.opts.Servers, path)
	if !known {
		return nil, false
	}
	c := s.client(srv)
	if c == nil {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(path)))
	if err != nil {
		return nil, false
	}
	return s.errorsOf(ctx, srv, c, path, data)
}

// ErrorsOf is Errors for the file at path with the given content instead
// of what is on disk (the content before an edit, from a snapshot).
func (s *Session) ErrorsOf(ctx context.Context, path string, data []byte) ([]Diagnostic, bool) {
	srv, known := serverFor(s.opts.Servers, path)
	if !known {
		return nil, false
	}
	c := s.client(srv)
	if c == nil {
		return nil, false
	}
	return s.errorsOf(ctx, srv, c, path, data)
}

func (s *Session) errorsOf(ctx context.Context, srv Server, c *client, path string, data []byte) (ds []Diagnostic, ok bool) {
	u := uri.File(filepath.Join(s.root, filepath.FromSlash(path)))
	seq, err := c.sync(ctx, u, string(data))
	if err != nil {
		s.fail(srv, "send %s: %v", path, err)
		return nil, false
	}
	raw, got := c.wait(ctx, u, seq, s.opts.Settle, s.opts.Wait)
	if !got {
		s.opts.Log("lsp: %s sent no diagnostics for %s within %s; going on without", srv.Argv[0], path, s.opts.Wait)
		return nil, false
	}
	for _, d := range raw {
		if d.Severity != protocol.DiagnosticSeverityError && d.Severity != 0 {
			continue
		}
		ds = append(ds, Diagnostic{Path: path, Line: int(d.Range.Start.Line) + 1, Col: int(d.Range.Start.Character) + 1,
			Message: strings.TrimSpace(d.Message), Source: d.Source, Code: codeString(d.Code)})
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
	return ds, true
}

// codeString renders a diagnostic code (a number or a string).
func codeString(c any) string {
	if c == nil {
		return ""
	}
	return strings.Trim(fmt.Sprint(c), `"`)
}

// client returns the running server for srv, starting it on first use;
// nil when it is missing or failed before.
func (s *Session) client(srv Server) *client {
	key := srv.Argv[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[key]; ok {
		select {
		case <-c.conn.Done():
			delete(s.clients, key)
			s.dead[key] = true
			s.opts.Log("lsp: %s exited; no more diagnostics from it in this run", key)
			return nil
		default:
			return c
		}
	}
	if s.dead[key] {
		return nil
	}
	cmd, err := s.command(srv)
	if err == nil {
		var c *client
		if c, err = start(s.ctx, cmd, srv, s.root, s.opts.Start); err == nil {
			s.clients[key] = c
			return c
		}
	}
	s.dead[key] = true
	s.opts.Log("lsp: %s unavailable (%v); edits of its files get no diagnostics", key, err)
	return nil
}

// fail marks a server as failed after it broke mid-run.
func (s *Session) fail(srv Server, format string, args ...any) {
	key := srv.Argv[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[key]; ok {
		c.abort()
		delete(s.clients, key)
	}
	if !s.dead[key] {
		s.dead[key] = true
		s.opts.Log("lsp: %s failed (%s); no more diagnostics from it in this run", key, fmt.Sprintf(format, args...))
	}
}

// command builds the server's process: under bubblewrap when a policy is
// set and the host has it, else directly; always with the scrubbed
// environment.
func (s *Session) command(srv Server) (*sandbox.Cmd, error) {
	bin, err := srv.binary()
	if err != nil {
		return nil, err
	}
	argv := append([]string{bin}, srv.Argv[1:]...)
	if s.opts.Sandbox != nil && sandbox.Check() == nil {
		p := *s.opts.Sandbox
		p.ReadOnly = append(append([]string(nil), p.ReadOnly...), installRoot(bin))
		if rt := runtimeRoot(srv); rt != "" {
			p.ReadOnly = append(p.ReadOnly, rt)
		}
		// A server lives as long as the run: the disk other runs fill
		// while it waits is not its writing.
		p.Limits.Written = 1 << 62
		return p.Command(s.ctx, s.root, argv, s.opts.Env)
	}
	cmd := exec.CommandContext(s.ctx, argv[0], argv[1:]...)
	cmd.Dir = s.root
	cmd.Env = append(procenv.Filter(s.opts.Env), "CGO_ENABLED=0")
	cmd.WaitDelay = 2 * time.Second
	return sandbox.Plain(cmd), nil
}

// Close shuts every server down (shutdown, exit, then a kill).
func (s *Session) Close() {
	s.mu.Lock()
	cs := s.clients
	s.clients = map[string]*client{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.close(3 * time.Second) }()
	}
	wg.Wait()
	s.cancel()
}

// NewErrors returns the diagnostics of after that before does not have:
// the errors an edit introduced. Positions are ignored (an edit moves
// lines); equal messages are counted, so a second copy of an error is new.
func NewErrors(before, after []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		seen[d.key()]++
	}
	var out []Diagnostic
	for _, d := range after {
		if seen[d.key()] > 0 {
			seen[d.key()]--
			continue
		}
		out = append(out, d)
	}
	return out
}

func (d Diagnostic) key() string {
	return d.Path + "\x00" + d.Source + "\x00" + d.Code + "\x00" + d.Message
}
