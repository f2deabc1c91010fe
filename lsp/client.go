package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// client is one running server and what it published.
type client struct {
	srv  Server
	cmd  *sandbox.Cmd
	conn jsonrpc2.Conn

	mu      sync.Mutex
	changed chan struct{}                   // closed and replaced on every publication
	diags   map[protocol.DocumentURI]pubSet // the latest publication per document
	docs    map[protocol.DocumentURI]int32  // open documents and their version
}

// pubSet is one publication: the diagnostics and when they came.
type pubSet struct {
	diags []protocol.Diagnostic
	seq   int // counts publications for the document
}

// rwc joins the child's stdout and stdin into the stream jsonrpc2 reads.
type rwc struct {
	io.ReadCloser
	io.WriteCloser
}

func (r rwc) Close() error {
	return errors.Join(r.WriteCloser.Close(), r.ReadCloser.Close())
}

// start runs the server command and initializes it on root.
func start(ctx context.Context, cmd *sandbox.Cmd, srv Server, root string, timeout time.Duration) (*client, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &client{srv: srv, cmd: cmd, changed: make(chan struct{}),
		diags: map[protocol.DocumentURI]pubSet{}, docs: map[protocol.DocumentURI]int32{}}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{out, in}))
	c.conn.Go(ctx, c.handle)
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rootURI := uri.File(root)
	params := protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		RootURI:    rootURI, //nolint:staticcheck // deprecated for WorkspaceFolders, which we send too; older servers read only this
		ClientInfo: &protocol.ClientInfo{Name: "issuesmith"},
		Capabilities: protocol.ClientCapabilities{TextDocument: &protocol.TextDocumentClientCapabilities{
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
		}},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(rootURI), Name: "root"}},
	}
	// processId is null: in the sandbox's PID namespace the bot's PID is
	// not this process, and servers that watch it would exit at once.
	raw, err := json.Marshal(params)
	if err != nil {
		c.abort()
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		c.abort()
		return nil, err
	}
	fields["processId"] = nil
	var res json.RawMessage
	if _, err := c.conn.Call(ictx, protocol.MethodInitialize, fields, &res); err != nil {
		c.abort()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := c.conn.Notify(ictx, protocol.MethodInitialized, protocol.InitializedParams{}); err != nil {
		c.abort()
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return c, nil
}

// handle answers the server: publications are stored, requests to the
// client (configuration, progress, registrations) get empty answers.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.mu.Lock()
			c.diags[p.URI] = pubSet{diags: p.Diagnostics, seq: c.diags[p.URI].seq + 1}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		_ = json.Unmarshal(req.Params(), &p)
		return reply(ctx, make([]any, len(p.Items)), nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, nil)
	}
	return nil
}

// sync sends the document's content (didOpen the first time, didChange
// after) and returns the publication count before it.
func (c *client) sync(ctx context.Context, u protocol.DocumentURI, text string) (int, error) {
	c.mu.Lock()
	v, open := c.docs[u]
	v++
	c.docs[u] = v
	seq := c.diags[u].seq
	c.mu.Unlock()
	if !open {
		return seq, c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(c.srv.LanguageID), Version: v, Text: text}})
	}
	return seq, c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, fullChange{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []wholeText{{Text: text}}})
}

// fullChange is didChange's params with whole-document changes: the
// module's TextDocumentContentChangeEvent always sends a range, which
// servers read as an insertion at 1:1.
type fullChange struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wholeText                              `json:"contentChanges"`
}

type wholeText struct {
	Text string `json:"text"`
}

// wait returns the document's diagnostics once a publication newer than
// seq came and none followed for settle; at limit it returns what it has
// and false when nothing new came at all.
func (c *client) wait(ctx context.Context, u protocol.DocumentURI, seq int, settle, limit time.Duration) ([]protocol.Diagnostic, bool) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		cur, ch := c.diags[u], c.changed
		c.mu.Unlock()
		quiet := time.NewTimer(settle)
		if cur.seq <= seq {
			quiet.Stop()
			quiet.C = nil
		}
		select {
		case <-ch:
			quiet.Stop()
			continue
		case <-quiet.C:
			return cur.diags, true
		case <-deadline.C:
			quiet.Stop()
			return cur.diags, cur.seq > seq
		case <-ctx.Done():
			quiet.Stop()
			return cur.diags, false
		case <-c.conn.Done():
			quiet.Stop()
			return cur.diags, false
		}
	}
}

// close asks the server to shut down and exit, and kills it after grace.
func (c *client) close(grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if _, err := c.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
		_ = c.conn.Notify(ctx, protocol.MethodExit, nil)
	}
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		c.kill()
		<-done
	}
	_ = c.conn.Close()
}

// abort kills the process and reaps it.
func (c *client) abort() {
	c.kill()
	_ = c.cmd.Wait()
	_ = c.conn.Close()
}

// kill ends the process at once.
func (c *client) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
}
