package workflow

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/internal/fence"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// progressStages are the checklist lines of the progress comment.
var progressStages = []struct{ stage, label string }{
	{StageExplore, "Explore the repository and write the spec"},
	{StagePlan, "Plan the change"},
	{StageApproval, "Approval: tick **Approve and implement** in the plan, or comment `/implement`"},
	{StageCode, "Write the code, validate, push"},
	{StagePR, "Open the pull request"},
}

func stageIndex(stage string) int {
	for i, p := range progressStages {
		if p.stage == stage {
			return i
		}
	}
	return -1
}

// renderProgress renders the run's progress comment: the title by state,
// the stages as a list with a mark each (the code stage with its plan
// items' statuses, when items is set, and the language-server errors the
// coder left, diags), the current step, tokens and cost, links.
func renderProgress(r *Run, items []ItemStatus, diags ...string) string {
	var b strings.Builder
	switch r.State {
	case lifecycle.Done:
		b.WriteString("### issuesmith: done\n\n")
	case lifecycle.Failed:
		b.WriteString("### issuesmith: stopped\n\n")
	case lifecycle.Cancelled:
		b.WriteString("### issuesmith: cancelled\n\n")
	case lifecycle.Waiting:
		b.WriteString("### issuesmith: waiting for you\n\n")
	default:
		b.WriteString("### issuesmith: working on it\n\n")
	}
	cur := stageIndex(r.Stage)
	for i, p := range progressStages {
		line := p.label
		if i == cur && r.Open() {
			// Bold inside bold would end it early: the label's own goes.
			line = "**" + strings.ReplaceAll(line, "**", "") + "** ← now"
		}
		fmt.Fprintf(&b, "- %s %s%s\n", stageMark(r, i, cur), line, stageLink(r, p.stage))
		if p.stage == StageCode {
			renderItems(&b, items)
			renderDiagnostics(&b, diags)
		}
	}
	b.WriteString("\n")
	switch {
	case r.State == lifecycle.Failed || r.State == lifecycle.Cancelled:
		b.WriteString(explained("Why it stopped", r.Reason))
	case r.Step != "":
		// Our own words: a stage's step, or the reply saying which line of
		// an edited comment to fix (Markdown with a fenced quote of it).
		fmt.Fprintf(&b, "**Now:** %s\n\n", clipUTF8(strings.TrimSpace(r.Step), 3*maxDetailBytes))
	}
	if r.Branch != "" && r.PRNumber == 0 && r.State == lifecycle.Failed {
		fmt.Fprintf(&b, "**Branch:** `%s` holds what was done.\n\n", r.Branch)
	}
	fmt.Fprintf(&b, "**Usage:** %s tokens (%s in, %s out)",
		humanize.Comma(r.PromptTokens+r.CompletionTokens), humanize.Comma(r.PromptTokens), humanize.Comma(r.CompletionTokens))
	if r.Cost > 0 { // zero: no prices configured, not a free run
		fmt.Fprintf(&b, ", estimated cost $%.4f", r.Cost)
	}
	b.WriteString("\n\n")
	b.WriteString("<sub>Commands: `/spec` redo the spec · `/plan` redo the plan · `/implement` code the plan as it is · " +
		"`/retry` carry on after a stop · `/stop` cancel. Edit the spec or plan comment to change what happens next.</sub>\n")
	return b.String()
}

// stageMark is a stage's state as a plain mark, not a task-list box: a box
// in the bot's comment would invite a click ("Approval") that does nothing.
func stageMark(r *Run, i, cur int) string {
	switch {
	case i < cur || r.State == lifecycle.Done:
		return "✅"
	case i > cur:
		return "⬜"
	case r.State == lifecycle.Failed:
		return "❌"
	case r.State == lifecycle.Cancelled:
		return "⏹️"
	case r.State == lifecycle.Waiting:
		return "✋"
	}
	return "⏳"
}

// itemMarks are how each item status reads in the list: a mark and words,
// never a task-list box (a box in the bot's comment invites a click that
// does nothing).
var itemMarks = map[string]string{ItemPending: "⬜ to do", ItemWorking: "⏳ **working on it**", "done": "✅ done",
	"skipped": "⏭️ skipped", "failed": "❌ failed", "blocked": "⛔ blocked (blocked_paths)"}

// renderItems writes the plan items under the code stage's line.
func renderItems(b *strings.Builder, items []ItemStatus) {
	for _, it := range items {
		mark, ok := itemMarks[it.Status]
		if !ok {
			mark = it.Status
		}
		fmt.Fprintf(b, "  - `%s` — %s\n", it.Path, mark)
	}
}

// maxDiagsListed bounds the diagnostics listed in the progress comment.
const maxDiagsListed = 5

// renderDiagnostics lists, under the items, the language-server errors the
// coder left (a short list; the PR body's summary has them all).
func renderDiagnostics(b *strings.Builder, diags []string) {
	if len(diags) == 0 {
		return
	}
	fmt.Fprintf(b, "  - language-server errors left: %d\n", len(diags))
	for i, d := range diags {
		if i == maxDiagsListed {
			fmt.Fprintf(b, "    - … and %d more\n", len(diags)-i)
			break
		}
		fmt.Fprintf(b, "    - %s\n", inlineCode(clipUTF8(d, 300)))
	}
}

func stageLink(r *Run, stage string) string {
	switch {
	case stage == StageExplore && r.SpecCommentID != 0:
		return fmt.Sprintf(" → [spec](#issuecomment-%d)", r.SpecCommentID)
	case stage == StagePlan && r.PlanCommentID != 0:
		return fmt.Sprintf(" → [plan](#issuecomment-%d)", r.PlanCommentID)
	case stage == StagePR && r.PRNumber != 0:
		return fmt.Sprintf(" → #%d", r.PRNumber)
	}
	return ""
}

// maxDetailBytes bounds the collapsed details of a reason.
const maxDetailBytes = 1500

// explained renders a labelled reason: its first line inline, and the rest
// (an engine report, a check's output: code, diff lines, tags) verbatim in a
// collapsed code block, so it can neither break the comment's Markdown nor
// be hidden as HTML. The headline is defused: it may quote a model.
func explained(label, s string) string {
	head, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	out := fmt.Sprintf("**%s:** %s\n\n", label, ghtext.Defuse(clipUTF8(strings.TrimSpace(head), maxDetailBytes)))
	if rest = strings.Trim(rest, "\n"); strings.TrimSpace(rest) == "" {
		return out
	}
	return out + "<details><summary>Details</summary>\n\n" + fenced(clipUTF8(rest, maxDetailBytes)) + "\n</details>\n\n"
}

// fenced wraps text in a code fence longer than any backtick run inside it.
func fenced(s string) string {
	return fence.Wrap(s, "text") + "\n"
}

// clipUTF8 cuts s to at most n bytes on a rune boundary, marking the cut.
func clipUTF8(s string, n int) string { return clip.Bytes(s, n, "…") }

// inlineCode renders one line of foreign text (a diagnostic from the
// repository's code) as a code span it cannot close early.
func inlineCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", longest+1)
	return f + " " + s + " " + f
}

// count is "1 plan item" or "3 plan items": n and word, plural unless n is 1.
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
