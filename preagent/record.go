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
	lineTokens map[string]int  // token counts of rendered lines
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
// list of paths, then only counted, then the oldest actions go. The fold is
// chosen from per-line counts (remembered across renders) and the result is
// measured once more and cut if the estimate was short.
func (r *record) render(limit int) string {
	if r.lineTokens == nil || len(r.lineTokens) > 8192 {
		r.lineTokens = map[string]int{}
	}
	cost := func(s string) int {
		n, ok := r.lineTokens[s]
		if !ok {
			n = llm.CountText(s) + 1
			r.lineTokens[s] = n
		}
		return n
	}
	notRel, est := 0, cost(recordHeader)+cost(r.hypothesis)
	var foldGain []int // tokens saved by folding each not-relevant note
	for _, f := range r.files {
		n := cost(noteLine(f))
		est += n
		if !f.Relevant {
			notRel++
			foldGain = append(foldGain, n-cost(f.Path))
		}
	}
	for _, a := range r.actions {
		est += cost(a)
	}
	fold := 0
	for fold < notRel && est > limit {
		est -= foldGain[fold]
		fold++
	}
	countOnly := false
	if est > limit && notRel > 0 {
		countOnly = true
		for _, f := range r.files {
			if !f.Relevant {
				est -= cost(f.Path)
			}
		}
		fold = notRel
	}
	actions := r.actions
	for len(actions) > 0 && est > limit {
		est -= cost(actions[0])
		actions = actions[1:]
	}
	return cutTokens(r.renderFolded(fold, actions, countOnly), limit, "record cut")
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
		lines = append(lines, noteLine(f))
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

// noteLine renders one file note.
func noteLine(f fileNote) string {
	verdict := "not relevant"
	if f.Relevant {
		verdict = "RELEVANT"
	}
	return fmt.Sprintf("- %s: %s Verdict: %s, %s", f.Path, endDot(f.Summary), verdict, endDot(f.Why))
}

func endDot(s string) string {
	s = oneLine(s, 240)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
