package preagent

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// recordHeader starts the message that replaces compressed history; it
// also lets later compressions find the previous record.
const recordHeader = "[Exploration record: my earlier steps were compressed into these notes and their raw file " +
	"windows dropped. Open a file again if its exact text is needed.]"

// fileNote is what the record keeps of one explored file.
type fileNote struct {
	Path     string `json:"path"`
	Summary  string `json:"summary"`
	Relevant bool   `json:"relevant"`
	Why      string `json:"why"`
}

// record is the compact record of compressed history: per file a note, the
// other actions taken, and the explorer's current hypothesis.
type record struct {
	files      []fileNote
	actions    []string
	hypothesis string
	terms      map[string]bool // the terms, for fallback verdicts
}

// maxActions bounds the list of non-file actions kept in the record.
const maxActions = 30

// merge adds notes (a later note on a path replaces the earlier one, in
// place) and actions, and sets the hypothesis when one is given.
func (r *record) merge(notes []fileNote, actions []string, hypothesis string) {
	for _, n := range notes {
		found := false
		for i := range r.files {
			if r.files[i].Path == n.Path {
				r.files[i], found = n, true
				break
			}
		}
		if !found {
			r.files = append(r.files, n)
		}
	}
	r.actions = append(r.actions, actions...)
	if len(r.actions) > maxActions {
		r.actions = r.actions[len(r.actions)-maxActions:]
	}
	if h := strings.TrimSpace(hypothesis); h != "" {
		r.hypothesis = h
	}
}

// render writes the record as the text of one message, at most limit
// tokens: past it, the oldest files judged not relevant are folded into a
// list of paths, then only counted, then the oldest actions go.
func (r *record) render(limit int) string {
	notRel := 0
	for _, f := range r.files {
		if !f.Relevant {
			notRel++
		}
	}
	actions := r.actions
	for fold := 0; ; {
		text := r.renderFolded(fold, actions, fold > notRel)
		if llm.CountText(text) <= limit || (fold > notRel && len(actions) == 0) {
			return cutTokens(text, limit, "record cut")
		}
		switch {
		case fold <= notRel:
			fold += max(1, notRel/4)
			fold = min(fold, notRel+1)
		default:
			actions = actions[min(len(actions), max(1, len(actions)/3)):]
		}
	}
}

// renderFolded renders with the first fold not-relevant files reduced to
// their paths (or only counted when countOnly).
func (r *record) renderFolded(fold int, actions []string, countOnly bool) string {
	var b strings.Builder
	b.WriteString(recordHeader + "\n")
	var folded []string
	seenNotRel := 0
	var lines []string
	for _, f := range r.files {
		if !f.Relevant {
			seenNotRel++
			if seenNotRel <= fold {
				folded = append(folded, f.Path)
				continue
			}
		}
		verdict := "not relevant"
		if f.Relevant {
			verdict = "RELEVANT"
		}
		lines = append(lines, fmt.Sprintf("- %s: %s Verdict: %s, %s", f.Path, endDot(f.Summary), verdict, endDot(f.Why)))
	}
	if len(lines) > 0 {
		b.WriteString("Files I looked at:\n" + strings.Join(lines, "\n") + "\n")
	}
	switch {
	case len(folded) > 0 && countOnly:
		fmt.Fprintf(&b, "Also looked at %d more files, none relevant.\n", len(folded))
	case len(folded) > 0:
		b.WriteString("Also looked at, not relevant: " + strings.Join(folded, ", ") + "\n")
	}
	if len(actions) > 0 {
		b.WriteString("Other actions: " + strings.Join(actions, "; ") + "\n")
	}
	if r.hypothesis != "" {
		b.WriteString("My current hypothesis: " + r.hypothesis + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func endDot(s string) string {
	s = oneLine(s, 240)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
