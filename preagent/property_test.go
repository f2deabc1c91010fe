package preagent

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// largeTree writes a repository of pkgs×files Go files of 60–260 lines each
// and returns its directory and the file paths.
func largeTree(t testing.TB, pkgs, files int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	var paths []string
	for p := 0; p < pkgs; p++ {
		pkg := fmt.Sprintf("pkg%02d", p)
		if err := os.MkdirAll(filepath.Join(dir, "internal", pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < files; f++ {
			rel := fmt.Sprintf("internal/%s/file%02d.go", pkg, f)
			var b strings.Builder
			fmt.Fprintf(&b, "// Package %s holds generated handlers, part %d.\npackage %s\n\n", pkg, f, pkg)
			for fn, n := 0, 60+rng.IntN(200); b.Len() < n*40; fn++ {
				fmt.Fprintf(&b, "// Handle%d%02d processes request kind %d for the billing pipeline.\n", fn, f, fn)
				fmt.Fprintf(&b, "func Handle%d%02d(in []byte, limit int) (int, error) {\n\tif len(in) > limit {\n", fn, f)
				fmt.Fprintf(&b, "\t\treturn 0, fmt.Errorf(\"kind %d: %%d bytes over %%d\", len(in), limit)\n\t}\n\treturn len(in) * %d, nil\n}\n\n", fn, fn+1)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, rel)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# billing\n\nGenerated handlers under internal/.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, paths
}

// longScript is n exploration steps over paths, all different (so loop
// detection never fires), with an observer answer every observeEvery steps
// (0: none).
func longScript(paths []string, n, observeEvery int, seed uint64) llmtest.Script {
	rng := rand.New(rand.NewPCG(seed, 3))
	var s llmtest.Script
	for i := 1; i <= n; i++ {
		p := paths[(i*7)%len(paths)]
		var ex llmtest.Exchange
		switch rng.IntN(6) {
		case 0:
			ex = llmtest.Call("preview_file", fmt.Sprintf(`{"path":%q}`, p))
		case 1:
			ex = llmtest.Call("list_dir", fmt.Sprintf(`{"path":%q,"depth":%d}`, filepath.Dir(p), 1+i%3))
		case 2:
			ex = llmtest.Call("grep", fmt.Sprintf(`{"pattern":"Handle%d0","path":%q}`, i%40, filepath.Dir(p)))
		default:
			ex = llmtest.Call("read_file", fmt.Sprintf(`{"path":%q,"offset":%d}`, p, 1+rng.IntN(3)*40))
		}
		ex.Reply.Content = fmt.Sprintf("Step %d: %s may hold the billing limit check.", i, p)
		s = append(s, ex.When(llmtest.Expect{Role: "explorer"}))
		if observeEvery > 0 && i%observeEvery == 0 {
			s = append(s, llmtest.Reply(`{"analysis":"wandering","next":"continue","suggestion":"Grep for the limit check instead of reading files one by one."}`).
				When(llmtest.Expect{Role: "observer"}))
		}
	}
	return s
}

// TestPromptStaysUnderCeiling is the property test: over 300 scripted steps
// on a large tree, no request (explorer or observer) goes past the ceiling.
func TestPromptStaysUnderCeiling(t *testing.T) {
	t.Parallel()
	dir, paths := largeTree(t, 20, 20)
	ws := openWS(t, dir)
	const steps = 300
	srv, client := scripted(t, longScript(paths, steps, 10, 1))
	opts := Options{Budget: llm.Budget{MaxSteps: steps}, CompressAt: 5000, MaxPromptTokens: 7000,
		MaxResultTokens: 1500, RecordTokens: 1000, ObserveEvery: 10, NoModelVerdicts: true}
	res, err := New(client, ws, nil, opts).Explore(t.Context(), Issue{Title: "Billing rejects requests at the limit",
		Body: "Requests exactly at the limit are rejected with `bytes over`; they should pass."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != llm.StopStepLimit || res.Steps != steps || !res.Spec.Partial {
		t.Fatalf("reason %s after %d steps", res.Reason, res.Steps)
	}
	reqs := srv.Requests()
	if len(reqs) != steps+steps/10 {
		t.Fatalf("%d requests, want %d", len(reqs), steps+steps/10)
	}
	peak, memo := 0, tokenMemo{} // memo: exactly llm.CountTokens, each message counted once
	for i, r := range reqs {
		n := memo.count(r.Messages)
		peak = max(peak, n)
		if n > opts.MaxPromptTokens {
			t.Errorf("request %d (%s): %d prompt tokens, over the ceiling %d", i+1, r.Role, n, opts.MaxPromptTokens)
		}
	}
	if res.Compressions < 10 {
		t.Errorf("only %d compressions over %d steps", res.Compressions, steps)
	}
	t.Logf("%d requests, peak %d prompt tokens (ceiling %d), %d compressions", len(reqs), peak, opts.MaxPromptTokens, res.Compressions)
}
