package agents

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
)

func TestModelFaultMatrix(t *testing.T) {
	t.Parallel()
	for _, row := range append(fmRows(), fmModelRows()...) {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			require.NotEmpty(t, row.report, "every row cites the public report it plays")
			runFaultRow(t, row)
		})
	}
}

func runFaultRow(t *testing.T, row fmRow) {
	dir := t.TempDir()
	for name, body := range fmTree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	srv := llmtest.NewServer(t, row.script, row.opts...)
	ms, err := NewModels(modelEnv(srv.URL(), row.env...))
	require.NoError(t, err)
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	cfg, err := RepoConfig(ws)
	require.NoError(t, err)
	model, err := ms.ForRepo(cfg)
	require.NoError(t, err)

	// The bound: a run that loops would hit this deadline; the row then
	// fails on ctx.Err below, not on a timing guess.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// go build/vet are the coder's own tests' business; here they would only cost time.
	l := &Local{Model: model, Repo: cfg, Coder: Coder{Options: coder.Options{SkipGoChecks: true}}}
	body := cmp.Or(row.body, "The CLI should say goodbye after the greeting.")
	out, err := l.Run(ctx, ws, preagent.Issue{Title: "Add a goodbye", Body: body})
	require.NoError(t, ctx.Err(), "the run ends by itself")
	said := fmOutcome(out, err)

	if row.done {
		require.NoError(t, err, said)
		require.NotNil(t, out.Code, said)
		for _, it := range out.Code.Items {
			assert.Equal(t, coder.ItemDone, it.Status, "%s: %s", it.Path, said)
		}
		main, rerr := os.ReadFile(filepath.Join(dir, "main.go"))
		require.NoError(t, rerr)
		assert.Contains(t, string(main), "\tfmt.Println(greet.Goodbye(os.Args[1]))\n", said)
	} else {
		assert.Contains(t, said, row.want)
	}
	if row.check != nil {
		row.check(t, fmRun{dir: dir, out: out, err: err, requests: srv.Requests()})
	}
	for range row.drain {
		x := row.script[len(row.script)-srv.Remaining()].Expect
		_, _ = model.Chat(t.Context(), llm.Request{Role: llm.Role(x.Role), Messages: []llm.Message{{Role: llm.User, Content: "drain: " + x.Last + "; " + x.ToolResult}}})
	}

	requests := len(srv.Requests())
	assert.LessOrEqual(t, requests, len(row.script)+8, "bounded model calls")
	assert.Empty(t, srv.Rejected(), "every request was one a strict server accepts")
	fmNothingOutsideThePlan(t, dir, out)
	if out != nil && out.Code != nil {
		for _, it := range out.Code.Items {
			if it.Status != coder.ItemDone {
				continue
			}
			got, rerr := os.ReadFile(filepath.Join(dir, it.Path))
			require.NoError(t, rerr)
			assert.NotEqual(t, fmTree[it.Path], string(got), "%s is done without its change", it.Path)
			// A block refused on an earlier attempt may be fixed later; on
			// the attempt that ended the item none may be refused.
			final := fmt.Sprintf("attempt %d:", it.Attempts)
			for _, n := range it.Notes {
				if strings.HasPrefix(n, final) {
					assert.NotContains(t, n, "refused", "%s is done while a block is refused", it.Path)
				}
			}
		}
	}
	t.Logf("%s: %d model calls; outcome: %s", row.name, requests, said)
}

// fmRun is what a row's check looks at: the repository after the run, the
// run's outcome and error, and the requests the scripted server saw.
type fmRun struct {
	dir      string
	out      *Outcome
	err      error
	requests []llmtest.Request
}

// file is the content of the repository's file at rel.
func (r fmRun) file(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// item is the coder's result for the plan item at path.
func (r fmRun) item(t *testing.T, path string) coder.ItemResult {
	t.Helper()
	require.NotNil(t, r.out, "no outcome")
	require.NotNil(t, r.out.Code, "the coder did not run")
	for _, it := range r.out.Code.Items {
		if it.Path == path {
			return it
		}
	}
	require.Failf(t, "no item", "the coder reported no item %s", path)
	return coder.ItemResult{}
}

// fmOutcome is everything the run said about how it ended.
func fmOutcome(out *Outcome, err error) string {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %v; ", err)
	}
	if out == nil {
		return b.String()
	}
	if out.Explore != nil {
		fmt.Fprintf(&b, "explorer: %s; ", out.Explore.Reason)
	}
	if out.Spec != nil && out.Spec.Partial {
		fmt.Fprintf(&b, "partial spec: %s; ", out.Spec.Note)
	}
	if out.Stopped != "" {
		fmt.Fprintf(&b, "stopped: %s; ", out.Stopped)
	}
	if out.Code != nil {
		for _, it := range out.Code.Items {
			fmt.Fprintf(&b, "%s %s %s %s; ", it.Path, it.Status, it.Reason, strings.Join(it.Notes, " | "))
		}
	}
	return b.String()
}

// fmNothingOutsideThePlan fails when a file the plan does not name changed.
func fmNothingOutsideThePlan(t *testing.T, dir string, out *Outcome) {
	planned := map[string]bool{}
	if out != nil && out.Plan != nil {
		for _, it := range out.Plan.Items {
			planned[it.Path] = true
		}
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, ".git/") || strings.HasPrefix(rel, ".issuesmith") {
			return nil
		}
		seen[rel] = true
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if want, ok := fmTree[rel]; (!ok || want != string(got)) && !planned[rel] {
			t.Errorf("%s changed outside the plan", rel)
		}
		return nil
	})
	require.NoError(t, err)
	for name := range fmTree {
		if !seen[name] && !planned[name] {
			t.Errorf("%s was removed outside the plan", name)
		}
	}
}
