package workflow

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// outsideFences returns the lines of md that are not inside a code fence and
// fails when a fence is left open.
func outsideFences(t *testing.T, md string) []string {
	t.Helper()
	var out []string
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(l, "```"):
			fence = l[:len(l)-len(strings.TrimLeft(l, "`"))]
		case fence != "" && strings.TrimSpace(l) == fence:
			fence = ""
		case fence == "":
			out = append(out, l)
		}
	}
	if fence != "" {
		t.Fatalf("a code fence is left open:\n%s", md)
	}
	return out
}

// A stop reason that quotes the edit engine's report (code, diff lines,
// tags, backticks) shows its first line as the reason and the report as
// verbatim text: nothing of it is read as Markdown or HTML, the comment's
// own lines stay outside any fence, and a long multi-byte reason is cut on
// a rune boundary.
func TestProgressStopReasonKeepsReportVerbatim(t *testing.T) {
	t.Parallel()
	report := "0 of 1 blocks applied, 1 refused; nothing changed.\n" +
		"Block 1 (greet.go): REFUSED (no_match): the SEARCH text is not in the file.\n" +
		"  Nearest text: lines 3–5 (similarity 80%). Differences (→ tab, · space):\n" +
		"- \treturn \"hi\"\n+ \treturn \"hello\"\n<file-edit filePath=\"greet.go\">\n# not a heading\n```go\nx := 1\n```\n"
	reason := "the change is incomplete, so I pushed branch `issuesmith/7` with what did work and opened no pull request.\n" +
		"- `greet.go`: failed — no clean edit after 4 attempts; last report:\n" + report +
		strings.Repeat("说明", 800)
	r := &Run{Status: lifecycle.Status{State: lifecycle.Failed, Stage: StageCode, Reason: reason}, Branch: "issuesmith/7"}
	md := renderProgress(r, nil)
	if !utf8.ValidString(md) {
		t.Fatal("the comment is not valid UTF-8")
	}
	if !strings.Contains(md, "**Why it stopped:** the change is incomplete, so I pushed branch `issuesmith/7` with what did work and opened no pull request.\n") {
		t.Fatalf("the reason's first line is not the headline:\n%s", md)
	}
	if !strings.Contains(md, "<details><summary>Details</summary>\n\n````text\n- `greet.go`: failed") {
		t.Fatalf("the report is not in a collapsed fence longer than its own:\n%s", md)
	}
	seen := map[string]bool{}
	for _, l := range outsideFences(t, md) {
		for _, bad := range []string{"<file-edit", "# not a heading", "- \treturn", "x := 1", "说明"} {
			if strings.Contains(l, bad) {
				t.Fatalf("report text %q is rendered as Markdown: %q\n%s", bad, l, md)
			}
		}
		for _, own := range []string{"**Usage:**", "<sub>Commands:", "**Branch:**"} {
			seen[own] = seen[own] || strings.HasPrefix(l, own)
		}
	}
	if len(seen) != 3 || !seen["**Usage:**"] || !seen["<sub>Commands:"] || !seen["**Branch:**"] {
		t.Fatalf("the comment's own lines are not all outside the fence (%v):\n%s", seen, md)
	}
}

// A long topic in a multi-byte script makes a valid, bounded PR title and
// commit subject.
func TestPRTitleCutsOnRuneBoundary(t *testing.T) {
	t.Parallel()
	spec := &work.Spec{Topic: "v" + strings.Repeat("支持深度求索平台", 10)}
	got := prTitle(spec, 7)
	if !utf8.ValidString(got) || len(got) > 121 || !strings.HasPrefix(got, "v支持深度求索平台") {
		t.Fatalf("title %q (%d bytes)", got, len(got))
	}
	if msg := commitMessage(7, spec); !utf8.ValidString(msg) {
		t.Fatalf("commit message is not valid UTF-8: %q", msg)
	}
}

// The PR body keeps its lists apart: the desired behaviour, the coder's
// per-file summary (under its own heading, or Markdown joins the two lists
// into one) and the plan, where an item's reason stays on its line.
func TestPRBodyListsStayApart(t *testing.T) {
	t.Parallel()
	spec := &work.Spec{Topic: "Greet by name", Desired: []string{"`greet` takes a name"}}
	plan := &work.Plan{Items: []work.Item{
		{Path: "greet.go", Action: work.ActionModify, Steps: []work.Step{{Text: "accept a name parameter"}}},
		{Path: "greet_test.go", Action: work.ActionAdd, Steps: []work.Step{{Text: "test it"}}},
	}}
	rec := &pushRecord{
		Items:   []ItemStatus{{Path: "greet.go", Status: "done"}, {Path: "greet_test.go", Status: "skipped", Reason: "no code change: the test\n\n## already exists"}},
		Checks:  []Check{{Name: "go build", OK: true}},
		Summary: "- `greet.go` (modify): done, +3 −1\n\n1 file changed.\n",
	}
	body := renderPRBody(12, spec, plan, rec)
	if !strings.Contains(body, "- `greet` takes a name\n\n## Changes\n\n- `greet.go` (modify): done, +3 −1\n") {
		t.Fatalf("the coder's summary runs into the desired behaviour's list:\n%s", body)
	}
	if !strings.Contains(body, "- ⏭️ **add** `greet_test.go` — skipped: no code change: the test ## already exists\n  - test it\n") {
		t.Fatalf("a multi-line reason breaks the plan's list:\n%s", body)
	}
	for _, want := range []string{"  - accept a name parameter\n", "- `go build`: passed\n", "\nFixes #12\n"} {
		if !strings.Contains(body, want) {
			t.Fatalf("body lacks %q:\n%s", want, body)
		}
	}
}

// Model-written text in the PR body and the progress comment neither
// closes other issues nor mentions people; the bot's own "Fixes #n" stays.
func TestPRBodyAndProgressDefuseModelText(t *testing.T) {
	t.Parallel()
	spec := &work.Spec{Topic: "Greet by name", Desired: []string{"also fixes #5 for @alice"}}
	plan := &work.Plan{Items: []work.Item{{Path: "a.go", Action: work.ActionModify, Steps: []work.Step{{Text: "ping @bob"}}}}}
	rec := &pushRecord{
		Items:   []ItemStatus{{Path: "a.go", Status: "skipped", Reason: "no code change: this closes #7, ask @carol"}},
		Summary: "- `a.go` (modify): skipped — resolves #8 @dave\n",
	}
	body := renderPRBody(12, spec, plan, rec)
	progress := renderProgress(&Run{Status: lifecycle.Status{State: lifecycle.Failed, Stage: StageCode, Reason: "the coder declined: fixes #9, thanks @erin\nmore"}}, nil)
	for _, md := range []string{body, progress} {
		for _, bad := range []string{"fixes #5", "@alice", "@bob", "closes #7", "@carol", "resolves #8", "@dave", "fixes #9", "@erin"} {
			if strings.Contains(md, bad) {
				t.Fatalf("model text %q is live:\n%s", bad, md)
			}
		}
	}
	if !strings.Contains(body, "\nFixes #12\n") {
		t.Fatalf("the bot's own closing keyword is gone:\n%s", body)
	}
}

// A waiting run's step that says which line of an edited comment to fix is
// shown in full, as Markdown: the person must see it without expanding
// anything.
func TestProgressShowsEditErrorInFull(t *testing.T) {
	t.Parallel()
	step := work.ErrorReply("plan", &work.ParseError{Line: 7, Text: "### rewrite `x.go`", Msg: "unknown action \"rewrite\""})
	md := renderProgress(&Run{Status: lifecycle.Status{State: lifecycle.Waiting, Stage: StageApproval, Step: step}}, nil)
	if !strings.Contains(md, "**Now:** I could not read the edited plan at line 7:\n\n```\n### rewrite `x.go`\n```\n\nUnknown action") {
		t.Fatalf("the edit error is not shown as written:\n%s", md)
	}
	if strings.Contains(md, "<details>") {
		t.Fatalf("the fix instructions are folded away:\n%s", md)
	}
	for _, l := range outsideFences(t, md) {
		if strings.Contains(l, "Fix that line") {
			return
		}
	}
	t.Fatalf("the instruction is not readable Markdown:\n%s", md)
}

// The stages carry plain marks, not task-list boxes someone could tick in
// the bot's comment (an "Approval" box there approves nothing); the plan
// items under the code stage keep their boxes.
func TestProgressStagesAreNotTaskBoxes(t *testing.T) {
	t.Parallel()
	r := &Run{Status: lifecycle.Status{State: lifecycle.Waiting, Stage: StageApproval}, PlanCommentID: 5}
	md := renderProgress(r, nil)
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "- [") {
			t.Fatalf("a stage is a clickable box: %q\n%s", l, md)
		}
	}
	for _, want := range []string{"- ✅ Plan the change → [plan](#issuecomment-5)\n", "- ✋ **Approval: tick Approve and implement in the plan, or comment `/implement`** ← now\n", "- ⬜ Write the code"} {
		if !strings.Contains(md, want) {
			t.Fatalf("progress lacks %q:\n%s", want, md)
		}
	}
	failed := renderProgress(&Run{Status: lifecycle.Status{State: lifecycle.Failed, Stage: StageCode}}, []ItemStatus{{Path: "a.go", Status: "failed"}})
	if !strings.Contains(failed, "- ❌ Write the code, validate, push\n  - `a.go` — ❌ failed\n") {
		t.Fatalf("the failed stage is not marked:\n%s", failed)
	}
}

// Without configured prices the cost is unknown, not $0: the usage line
// says the tokens only.
func TestProgressCostOnlyWhenPriced(t *testing.T) {
	t.Parallel()
	r := &Run{Status: lifecycle.Status{State: lifecycle.Active, Stage: StageExplore}, PromptTokens: 12000, CompletionTokens: 345}
	if md := renderProgress(r, nil); !strings.Contains(md, "**Usage:** 12,345 tokens (12,000 in, 345 out)\n") || strings.Contains(md, "$") {
		t.Fatalf("unpriced usage:\n%s", md)
	}
	r.Cost = 0.0123
	if md := renderProgress(r, nil); !strings.Contains(md, "**Usage:** 12,345 tokens (12,000 in, 345 out), estimated cost $0.0123\n") {
		t.Fatalf("priced usage:\n%s", md)
	}
}

// A model-written topic cannot close another issue through the PR title
// (a squash merge's commit subject) or the commit message; the commit's own
// reference to its issue is not a closing keyword.
func TestPRTitleAndCommitDoNotCloseOtherIssues(t *testing.T) {
	t.Parallel()
	spec := &work.Spec{Topic: "Fixes #5: greet by name, closes owner/repo#6"}
	for _, s := range []string{prTitle(spec, 7), commitMessage(7, spec)} {
		low := strings.ToLower(s)
		if strings.Contains(low, "fixes #5") || strings.Contains(low, "closes owner/repo#6") {
			t.Fatalf("closing keyword is live: %q", s)
		}
		if !strings.Contains(s, "#5: greet by name") {
			t.Fatalf("the topic's words are lost: %q", s)
		}
	}
}
