package work

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// Kinds of bot comments, as written in the hidden marker.
const (
	KindSpec = "spec"
	KindPlan = "plan"
)

// Markdown pieces shared by the renderer and the parser.
const (
	specTitle     = "## Spec: "
	planTitle     = "## Plan"
	partialPrefix = "> **Partial spec:** "
	approveText   = "**Approve and implement**"
	reasonPrefix  = "*Why:* "
	footerRule    = "---"
)

// Section headings of the spec comment.
const (
	secCurrent   = "Current behaviour"
	secDesired   = "Desired behaviour"
	secFiles     = "Files"
	secQuestions = "Open questions"
)

// Long parts fold into <details> past these sizes, so the comment stays
// readable while every line remains editable.
const (
	foldBullets = 6
	foldChars   = 900
	foldSteps   = 8
)

// Marker returns the hidden marker that lets the bot find its own comment of
// the given kind ("spec" or "plan").
func Marker(kind string, m Meta) string {
	run := strings.Join(strings.Fields(m.RunID), "-")
	if run == "" {
		run = "local"
	}
	return ghtext.Marker{Kind: kind, Run: run, Version: m.Version}.String()
}

// RenderSpec renders the spec comment as GitHub Markdown: the marker, the
// topic, current and desired behaviour as bullets, the files as ticked
// task-list items ("untick to drop"), open questions, and a footer saying how
// to edit. ParseSpec reads the result (and people's edits of it) back.
func RenderSpec(s *Spec, m Meta) string {
	var b strings.Builder
	b.WriteString(Marker(KindSpec, m) + "\n")
	b.WriteString(specTitle + oneLine(s.Topic) + "\n\n")
	if s.Partial {
		note := oneLine(s.Note)
		if note == "" {
			note = "the explorer stopped before it finished; check the files below."
		}
		b.WriteString(partialPrefix + note + "\n\n")
	}
	if s.NeedsAnswers() {
		// The explorer reads the title and body, not its comments.
		b.WriteString("The issue is not clear enough to act on yet. Please answer the questions below by " +
			"editing the issue, then comment `/spec`. If you know which files must change, add them under " +
			"`### Files` here instead and comment `/plan`.\n\n")
	}
	writeBullets(&b, secCurrent, s.Current)
	writeBullets(&b, secDesired, s.Desired)
	if len(s.Files) > 0 {
		b.WriteString("### " + secFiles + "\n")
		for _, f := range s.Files {
			fmt.Fprintf(&b, "- [x] **%s** `%s` — %s\n", oneLine(string(f.Action)), codePath(f.Path), oneLine(f.Reason))
		}
		b.WriteString("\n")
	}
	writeBullets(&b, secQuestions, s.Questions)
	b.WriteString(footerRule + "\n")
	b.WriteString("<sub>The boxes under Files say which files the plan will change: untick a file to leave it out " +
		"(tick it again to bring it back). Edit this comment to correct the spec: add, remove or reword bullets and " +
		"files (`` - [x] **modify** `path` — reason ``; actions: add, modify, delete). " +
		"Comment `/plan` to plan from the edited spec.</sub>\n")
	return b.String()
}

// writeBullets writes a "### title" section of bullets, folded into
// <details> when long; nothing when there are no bullets.
func writeBullets(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("### " + title + "\n")
	size := 0
	for _, it := range items {
		size += len(it)
	}
	fold := len(items) > foldBullets || size > foldChars
	if fold {
		fmt.Fprintf(b, "<details><summary>%d points</summary>\n\n", len(items))
	}
	for _, it := range items {
		b.WriteString("- " + oneLine(it) + "\n")
	}
	if fold {
		b.WriteString("\n</details>\n")
	}
	b.WriteString("\n")
}

// RenderPlan renders the plan comment: the marker, the "approve and
// implement" box (ticked when approved) — the comment's only checkbox —
// then one "### n. action `path`" section per item in order with its reason
// and its steps as plain bullets (folded into <details> when long; progress
// is shown in the progress comment, never by ticking steps), and a footer
// giving the formats exactly as written here.
func RenderPlan(p *Plan, st PlanState, m Meta) string {
	var b strings.Builder
	b.WriteString(Marker(KindPlan, m) + "\n")
	b.WriteString(planTitle + "\n\n")
	fmt.Fprintf(&b, "- [%s] %s: tick this box (or comment <code>/implement</code>) to let issuesmith write the code.\n\n",
		box(st.Approved), approveText)
	for i, it := range p.Items {
		fmt.Fprintf(&b, "### %d. %s `%s`\n", i+1, oneLine(string(it.Action)), codePath(it.Path))
		if r := oneLine(it.Reason); r != "" {
			b.WriteString(reasonPrefix + r + "\n")
		}
		b.WriteString("\n")
		fold := len(it.Steps) > foldSteps
		if fold {
			fmt.Fprintf(&b, "<details><summary>%d steps</summary>\n\n", len(it.Steps))
		}
		for _, s := range it.Steps {
			b.WriteString("- " + oneLine(s.Text) + "\n")
		}
		if fold {
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(footerRule + "\n")
	b.WriteString("<sub>Edit this plan before approving: add, remove, reorder or reword steps " +
		"(`- step`) and files (`` ### 3. modify `path` `` — the number is optional; actions: add, modify, delete). " +
		"Files are changed in the order listed. Only the box at the top is a control; progress is shown in the " +
		"progress comment.</sub>\n")
	return b.String()
}

func box(ticked bool) string {
	if ticked {
		return "x"
	}
	return " "
}

// codePath makes p safe inside a one-line code span: a control character or
// a backtick (a partial spec can name a repository file called so; CheckPath
// refuses them elsewhere) becomes "?", so the name cannot end the span or
// the line and write Markdown of its own.
func codePath(p string) string {
	b := []byte(p) // bytewise: other bytes, even invalid UTF-8, stay as they are
	for i, c := range b {
		if c < 0x20 || c == 0x7f || c == '`' {
			b[i] = '?'
		}
	}
	return string(b)
}

// oneLine folds whitespace (including newlines) so a value stays on its
// Markdown line and cannot inject structure into the comment, and defuses
// it (ghtext.Defuse): model-written text must not mention people, close
// other issues, or hide later lines in an HTML comment the parser still
// reads.
func oneLine(s string) string {
	return ghtext.Defuse(strings.Join(strings.Fields(s), " "))
}
