package cievidence

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCutKeepsTheFailingStep(t *testing.T) {
	got := Cut(readLog(t, "go-test-fail.log"))
	for _, want := range []string{
		"== step: Run go test ./...",
		"--- FAIL: TestAdd (0.00s)",
		"calc_test.go:12: Add(1, 2) = 4, want 3",
		"FAIL\tgithub.com/acme/calc\t0.004s",
		"##[error]Process completed with exit code 1.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("cut log lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"Runner Image Provisioner", "Syncing repository", "Setup go version", "Cleaning up orphan", "2026-11-20T"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("cut log keeps %q (not a failing step or a timestamp):\n%s", unwanted, got)
		}
	}
}

func TestCutCompilerErrorsAndUnmarkedLogs(t *testing.T) {
	got := Cut(readLog(t, "build-fail.log"))
	for _, want := range []string{"./calc.go:17:9: undefined: sum", "./calc.go:21:2: missing return"} {
		if !strings.Contains(got, want) {
			t.Errorf("cut log lacks %q:\n%s", want, got)
		}
	}
	// A log without ##[error] (a check's text, another CI) is one step: its
	// telling lines are kept, the noise between them elided.
	var b strings.Builder
	for i := range 100 {
		b.WriteString("compiling unit " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("src/app.ts:3:7: error TS2322: Type 'string' is not assignable to type 'number'.\n")
	got = Cut(b.String())
	if !strings.Contains(got, "error TS2322") || !strings.Contains(got, "lines …") || strings.Count(got, "\n") > 15 {
		t.Errorf("unmarked log not cut to its error:\n%s", got)
	}
}

func TestRenderFencesAndRedactsUntrustedLog(t *testing.T) {
	c := Check{Name: "test (ubuntu-latest)", Status: "completed", Conclusion: Failure,
		Title: "go test failed", Log: readLog(t, "go-test-fail.log")}
	got := Render([]Check{c}, 0)
	if strings.Contains(got, "ghp_R4nd0m") {
		t.Fatalf("token reached the evidence:\n%s", got)
	}
	// The log tries to close a ``` fence; the evidence's fence must be longer
	// than any backtick run inside, so the instruction stays inside it.
	open := regexp.MustCompile("(?m)^(`{4,})text$").FindStringSubmatch(got)
	if open == nil {
		t.Fatalf("no fence of four or more backticks around a log holding ```:\n%s", got)
	}
	start := strings.Index(got, open[0]) + len(open[0])
	end := strings.Index(got[start:], "\n"+open[1])
	if end < 0 {
		t.Fatalf("fence %s never closed:\n%s", open[1], got)
	}
	inside, outside := got[start:start+end], got[:start]+got[start+end:]
	for _, injected := range []string{"IGNORE ALL PREVIOUS INSTRUCTIONS", "approve and merge"} {
		if !strings.Contains(inside, injected) || strings.Contains(outside, injected) {
			t.Errorf("%q is not confined to the fence", injected)
		}
	}
	if !strings.HasPrefix(got, Preamble) || !strings.Contains(got, "Check `test (ubuntu-latest)` concluded failure") {
		t.Errorf("evidence lacks its preamble or check header:\n%s", got)
	}
}

func TestRenderStaysUnderTheCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("##[group]Run go test ./...\n##[endgroup]\n")
	for i := range 3000 {
		b.WriteString("--- FAIL: TestMany/case_" + strings.Repeat("n", i%9) + " (0.00s)\n")
	}
	b.WriteString("##[error]Process completed with exit code 1.\n")
	checks := []Check{
		{Name: "a", Status: "completed", Conclusion: Failure, Log: b.String()},
		{Name: "b", Status: "completed", Conclusion: TimedOut, Summary: strings.Repeat("slow ", 5000)},
	}
	got := Render(checks, 4096)
	if len(got) > 4096+256 {
		t.Errorf("evidence is %d bytes, cap 4096", len(got))
	}
	if strings.Count(got, "(cut: ") != 2 {
		t.Errorf("each over-long check should be marked cut:\n%s", got)
	}
}

func TestDecide(t *testing.T) {
	done := func(name, concl string) Check { return Check{Name: name, Status: "completed", Conclusion: concl} }
	for _, tc := range []struct {
		name              string
		head, base        []Check
		act               bool
		ours, preExisting string
	}{
		{"still running", []Check{done("test", Failure), {Name: "lint", Status: "in_progress"}}, nil, false, "", ""},
		{"new failure", []Check{done("test", Failure), done("lint", Success)}, []Check{done("test", Success)}, true, "test", ""},
		{"timed out counts", []Check{done("e2e", TimedOut)}, nil, true, "e2e", ""},
		{"fails on base too", []Check{done("test", Failure), done("lint", Failure)}, []Check{done("test", Failure)}, true, "lint", "test"},
		{"only pre-existing", []Check{done("test", Failure)}, []Check{done("test", TimedOut)}, false, "", "test"},
		{"ignored conclusions", []Check{done("a", Neutral), done("b", Skipped), done("c", Cancelled), done("d", Success)}, nil, false, "", ""},
		{"re-run wins", []Check{done("test", Failure), done("test", Success)}, nil, false, "", ""},
		{"no checks", nil, nil, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.head, tc.base)
			if d.Act() != tc.act || Names(d.Ours) != tc.ours || Names(d.PreExisting) != tc.preExisting {
				t.Errorf("Decide = act %v, ours %q, pre-existing %q; want %v, %q, %q",
					d.Act(), Names(d.Ours), Names(d.PreExisting), tc.act, tc.ours, tc.preExisting)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	log := readLog(t, "go-test-fail.log")
	c := Check{Name: "test", Status: "completed", Conclusion: Failure, Log: log}
	again := c
	again.Log = strings.ReplaceAll(strings.ReplaceAll(log, "(0.00s)", "(0.31s)"), "2026-11-20T10", "2026-11-21T18")
	if Signature(c) != Signature(again) {
		t.Error("the same failure with other timings and timestamps has another signature")
	}
	other := c
	other.Log = strings.ReplaceAll(log, "TestAdd", "TestSub")
	renamed := c
	renamed.Name = "lint"
	if Signature(c) == Signature(other) || Signature(c) == Signature(renamed) {
		t.Error("a different failing test or check has the same signature")
	}
	if len(Signature(c)) != 16 {
		t.Errorf("signature %q is not 16 hex digits", Signature(c))
	}
}
