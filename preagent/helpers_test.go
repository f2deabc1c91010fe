package preagent

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo"
)

// copyTree copies a testdata tree into a fresh temp dir and returns it.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// openWS opens a workspace on dir, closed when the test ends.
func openWS(t testing.TB, dir string) *repo.Workspace {
	t.Helper()
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// scripted starts the scripted model server and returns a real client on it.
func scripted(t testing.TB, script llmtest.Script) (*llmtest.Server, *llm.Client) {
	t.Helper()
	srv := llmtest.NewServer(t, script)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "scripted",
		Retry: llm.RetryConfig{MaxAttempts: 1},
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// roleRequests returns the requests made for one role, in order.
func roleRequests(srv *llmtest.Server, role llm.Role) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Role == string(role) {
			out = append(out, r)
		}
	}
	return out
}

// allText joins every message's content of a request.
func allText(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

func readIssue(t testing.TB, path string) Issue {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseIssueText(string(data))
}
