package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/replay"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// `bot replay --model oracle --sessions DB` keeps each instance's run as a
// session in DB, the way the App does, and each result line says how many
// bytes it stored.
func TestReplayKeepsEachRunsSession(t *testing.T) {
	t.Parallel()
	repos := t.TempDir()
	src := writeTree(t, map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) {}\n",
	})
	gitInit(t, src)
	if err := os.MkdirAll(filepath.Join(repos, "acme"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(repos, "acme", "calc")); err != nil {
		t.Fatal(err)
	}
	base := gitOut(t, src, "rev-parse", "HEAD")
	writeInto(t, src, map[string]string{
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) {}\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n",
	})
	gitOut(t, src, "add", "-A")
	gitOut(t, src, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fix")
	in := replay.Instance{ID: "acme__calc-1", Repo: "acme/calc", BaseCommit: base, FixCommit: gitOut(t, src, "rev-parse", "HEAD"),
		GoldFiles: []string{"calc.go"}, TestFiles: []string{"calc_test.go"}, FailToPass: []string{"TestAdd"},
		PassToPass: []string{"TestOld"}, TestCmd: "go test -run '^({tests})$' ./...",
		ProblemStatement: "Add subtracts instead of adding: Add(1, 2) is -1, it must be 3."}
	line, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	insts := filepath.Join(dir, "instances.jsonl")
	if err := os.WriteFile(insts, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "sessions.db")
	f := replayFlags{instances: insts, repos: repos, model: "oracle", out: filepath.Join(dir, "out.jsonl"), jobs: 1,
		testTimeout: 5 * time.Minute, stageTimeout: 5 * time.Minute, cacheBudget: "0", sessions: db}
	// The default caches (the user's cache folder), warm from the second run on this machine.
	var stderr, stdout bytes.Buffer
	if err := runReplay(t.Context(), f, nil, &stderr, &stdout); err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr.String())
	}
	res, err := replay.ReadResults(f.out)
	if err != nil {
		t.Fatal(err)
	}
	got := res[in.ID]
	if got.Status != replay.StatusResolved {
		t.Fatalf("status %s: %s\n%s", got.Status, got.Reason, stdout.String())
	}
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.ListSessions(t.Context(), store.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d sessions, want 1", len(list))
	}
	s := list[0]
	if s.FullRepo() != "acme/calc" || s.State != "done" || s.ModelCalls == 0 || s.ModelCalls != int64(got.Calls) {
		t.Errorf("session %+v; the result counted %d calls", s, got.Calls)
	}
	if s.Bytes == 0 || s.Bytes != got.SessionBytes {
		t.Errorf("session stored %d bytes, the result says %d", s.Bytes, got.SessionBytes)
	}
	evs, err := st.SessionEvents(t.Context(), s.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, ev := range evs {
		kinds[ev.Kind]++
	}
	if kinds[string(session.KindModel)] == 0 || kinds[string(session.KindEdit)] == 0 {
		t.Errorf("events by kind: %v", kinds)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("session bytes per run")) {
		t.Errorf("the summary gives no session figure:\n%s", stdout.String())
	}
}

// writeInto writes files (slash paths → contents) into dir.
func writeInto(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
