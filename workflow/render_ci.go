package workflow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// renderCI is the CI comment: each round (failing checks, the change, the
// commit) and what CI said next, why the loop stopped, the checks that
// fail on the base branch too, and the rounds' tokens and cost. Check
// names, summaries and failures are repository or model text: defused.
func renderCI(recs []ciRecord, rounds int) string {
	var b strings.Builder
	b.WriteString("### CI on this pull request\n\n")
	var tokens int64
	var cost float64
	var base []string
	for _, r := range recs {
		if r.Quiet {
			continue
		}
		tokens, cost = tokens+r.Tokens, cost+r.Cost
		for _, n := range r.Base {
			if !slices.Contains(base, n) {
				base = append(base, n)
			}
		}
		if line := ciLine(r, rounds); line != "" {
			b.WriteString(line + "\n")
		}
		if r.Note != "" {
			b.WriteString("  - " + r.Note + "\n")
		}
	}
	if len(base) > 0 {
		fmt.Fprintf(&b, "\nFailing on the base branch too, so not this pull request's to fix: %s.\n", quoted(base))
	}
	if tokens > 0 {
		fmt.Fprintf(&b, "\nThe CI fix rounds used %d tokens", tokens)
		if cost > 0 { // zero: no prices configured, not a free run
			fmt.Fprintf(&b, ", estimated cost $%.4f", cost)
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n<sub>The bot reads this pull request's CI and fixes what its change broke: at most " +
		count(rounds, "round") + " (`ci.fix_rounds` in `.github/issuesmith.yml`). Comment `/retry` for one more.</sub>\n")
	return b.String()
}

// ciLine is one record as a list item ("" for records with nothing to say).
func ciLine(r ciRecord, rounds int) string {
	short := r.Head
	if len(short) > 7 {
		short = short[:7]
	}
	switch r.Outcome {
	case "working":
		return fmt.Sprintf("- ⏳ **Round %d**: fixing %s…", r.Round, quoted(r.Checks))
	case ciFixed:
		line := fmt.Sprintf("- 🔧 **Round %d**: %s failed on %s → pushed %s", r.Round, quoted(r.Checks), short, r.SHA)
		if len(r.Files) > 0 {
			line += " (changed " + quoted(r.Files) + ")"
		}
		for _, l := range changedLines(r.Summary, r.Files) {
			line += "\n  " + ghtext.Defuse(l)
		}
		return line
	case ciNoFix:
		return fmt.Sprintf("- ❌ **Round %d**: %s failed on %s; no fix was pushed: %s", r.Round, quoted(r.Checks), short,
			ghtext.Defuse(firstLine(r.Failure)))
	case ciGreen:
		line := fmt.Sprintf("- ✅ CI passed on %s.", short)
		if r.Ready {
			line += " The pull request is marked ready for review."
		}
		return line
	case ciPreExisting:
		return fmt.Sprintf("- ⏭️ On %s only checks that fail on the base branch too failed: nothing to fix here.", short)
	case ciRepeat:
		return fmt.Sprintf("- ⛔ Stopped: %s failed on %s the same way as before the last fix, so another round would not help. "+
			"Comment `/retry` to try once more.", quoted(r.Checks), short)
	case ciPerson:
		return fmt.Sprintf("- ⛔ Stopped: %s failed on %s, a commit the bot did not make: it does not build on someone "+
			"else's commits unless asked. Comment `/retry` to have it fix the checks anyway.", quoted(r.Checks), short)
	case ciLimit:
		return fmt.Sprintf("- ⛔ Stopped: %s failed on %s after %s. Comment `/retry` for one more.", quoted(r.Checks), short,
			count(rounds, "fix round"))
	case ciEnded:
		return "- ⛔ Stopped: the pull request is closed."
	case ciNone:
		return fmt.Sprintf("- ⏭️ `/retry`: no check has run on %s, so there is nothing to fix yet.", short)
	case ciOff:
		return "- ⏭️ The CI fix loop is off for this repository (`ci.fix_rounds: 0`)."
	}
	return ""
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + strings.NewReplacer("`", "", "\n", " ").Replace(ghtext.Defuse(n)) + "`"
	}
	return strings.Join(q, ", ")
}

// changedLines are the coder summary's lines about the files a round
// changed (the summary also lists the files it left alone), at most three.
func changedLines(summary string, files []string) []string {
	var out []string
	for _, l := range strings.Split(summary, "\n") {
		for _, f := range files {
			if strings.Contains(l, "`"+f+"`") && len(out) < 3 {
				out = append(out, strings.TrimSpace(l))
				break
			}
		}
	}
	return out
}
