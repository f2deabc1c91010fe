package workflow

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/work"
)

// renderPRBody writes the pull request description: the spec's summary, the
// plan with each item's status, the validation results and "Fixes #n". Text
// that models wrote (or that came from them through a comment) is defused:
// only the bot's own "Fixes #n" may close an issue, and nobody is mentioned.
func renderPRBody(issue int, spec *work.Spec, plan *work.Plan, rec *pushRecord) string {
	var b strings.Builder
	b.WriteString("## Summary\n\n")
	if t := strings.TrimSpace(spec.Topic); t != "" {
		b.WriteString(ghtext.Defuse(t) + "\n\n")
	}
	for _, d := range spec.Desired {
		fmt.Fprintf(&b, "- %s\n", ghtext.Defuse(d))
	}
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		// Under its own heading: a list right after the desired bullets
		// would merge into theirs.
		b.WriteString("\n## Changes\n\n" + ghtext.Defuse(sum) + "\n")
	}
	status := map[string]ItemStatus{}
	for _, it := range rec.Items {
		status[it.Path] = it
	}
	b.WriteString("\n## Plan\n\n")
	for _, it := range plan.Items {
		st := status[it.Path]
		mark := map[string]string{"done": "✅", "skipped": "⏭️", "failed": "❌", "blocked": "⛔"}[st.Status]
		if mark == "" {
			mark = "•"
		}
		fmt.Fprintf(&b, "- %s **%s** `%s`", mark, it.Action, it.Path)
		if st.Status != "" && st.Status != "done" {
			fmt.Fprintf(&b, " — %s", st.Status)
			if r := strings.Join(strings.Fields(st.Reason), " "); r != "" {
				fmt.Fprintf(&b, ": %s", ghtext.Defuse(clipUTF8(r, 300)))
			}
		}
		b.WriteString("\n")
		for _, step := range it.Steps {
			fmt.Fprintf(&b, "  - %s\n", ghtext.Defuse(step.Text))
		}
	}
	b.WriteString("\n## Validation\n\n")
	if len(rec.Checks) == 0 {
		b.WriteString("No checks ran.\n")
	}
	for _, c := range rec.Checks {
		res := "passed"
		if !c.OK {
			res = "failed"
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", c.Name, res)
	}
	fmt.Fprintf(&b, "\nFixes #%d\n\n<sub>Written by issuesmith. Review comments that mention the bot are addressed with a new commit on this branch.</sub>\n", issue)
	return b.String()
}

// closingRE finds a closing keyword before an issue reference ("fixes #5",
// "Closes owner/repo#5", "resolves GH-5").
var closingRE = regexp.MustCompile(`(?i)\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(:?\s+)` +
	`((?:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)?#\d+|GH-\d+|https?://\S+/(?:issues|pull)/\d+)`)

// plainDefuse breaks closing keywords in plain text that GitHub reads but
// does not render as HTML (the PR title, which a squash merge makes the
// commit subject, and commit messages) with a real zero-width space: a
// model-written topic must not close other issues on merge.
func plainDefuse(s string) string {
	return closingRE.ReplaceAllStringFunc(s, func(m string) string {
		return m[:1] + "\u200b" + m[1:]
	})
}
