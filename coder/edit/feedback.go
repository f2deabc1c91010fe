package edit

import (
	"fmt"
	"strings"
)

// diagnose fills the candidates and nearest window of refused blocks against
// the content the model will see next: the written files, or the original
// ones when nothing was written.
func (w *workspace) diagnose(rep *Report, edits []Edit) {
	refs := map[string]*fileState{}
	index := map[string]*nearIndex{}
	for i := range rep.Blocks {
		b := &rep.Blocks[i]
		e := edits[i]
		if b.Status != StatusRefused || (e.Op != OpReplace && e.Op != OpLines) || len(e.Search) == 0 {
			continue
		}
		if b.Reason != ReasonNotFound && b.Reason != ReasonAmbiguous && !(e.Op == OpLines && b.Reason == ReasonStale) {
			continue
		}
		fs, ok := w.files[b.Path]
		if !ok || !fs.existed && !rep.Written {
			continue
		}
		ref := fs
		if !rep.Written {
			if refs[fs.path] == nil {
				refs[fs.path] = &fileState{path: fs.path, doc: parseDoc(fs.orig), exists: true}
			}
			ref = refs[fs.path]
		}
		search := e.Search
		if s, _, ok := stripNumbers(search); ok {
			search = s
		}
		if b.Reason == ReasonAmbiguous {
			if _, lv, cands, ok := ref.locate(search, hints{}); !ok && len(cands) > 1 {
				out := ambiguous(cands, lv)
				b.Candidates, b.Message = out.cands, out.message
			}
			continue
		}
		if index[fs.path] == nil {
			index[fs.path] = newNearIndex(ref.doc.texts())
		}
		b.Nearest = nearestWindow(index[fs.path], search)
		if e.Op == OpLines && b.Nearest != nil && b.Nearest.Similarity == 1 {
			b.Message += fmt.Sprintf("; the quoted lines are at %d–%d: resend with start=\"%d\" end=\"%d\"", b.Nearest.Start, b.Nearest.End, b.Nearest.Start, b.Nearest.End)
		}
	}
}

// Feedback renders the report as text for the model: one paragraph per block
// with what happened, and for refused blocks why, where the closest text is
// and what to resend.
func (r *Report) Feedback() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	if r.Problem != "" {
		fmt.Fprintf(&b, "No edit applied: %s.\n", r.Problem)
		return b.String()
	}
	b.WriteString(r.summary())
	for _, br := range r.Blocks {
		b.WriteString(br.feedback(r.Written))
	}
	if !r.OK() {
		if r.Written {
			b.WriteString("Resend only the refused blocks; the applied ones are in the files now.\n")
		} else {
			b.WriteString("Nothing was written: fix the refused blocks and resend all blocks of this message.\n")
		}
	}
	return b.String()
}

// summary is the first line of the feedback.
func (r *Report) summary() string {
	n := map[Status]int{}
	for _, b := range r.Blocks {
		n[b.Status]++
	}
	verb := "applied"
	if !r.Written && n[StatusApplied] > 0 {
		verb = "would apply"
	}
	s := fmt.Sprintf("%d of %d blocks %s", n[StatusApplied], len(r.Blocks), verb)
	for _, st := range []Status{StatusAlreadyApplied, StatusRefused, StatusIncomplete} {
		if n[st] > 0 {
			s += fmt.Sprintf(", %d %s", n[st], strings.ReplaceAll(string(st), "_", " "))
		}
	}
	switch {
	case r.Written:
		s += "; changed: " + strings.Join(r.Changed, ", ")
	case n[StatusApplied] > 0:
		s += "; nothing written (the edit is all-or-nothing)"
	default:
		s += "; nothing changed"
	}
	return s + ".\n"
}

// feedback renders one block.
func (b BlockResult) feedback(written bool) string {
	var s strings.Builder
	name := fmt.Sprintf("Block %d", b.Index)
	if b.Path != "" {
		name += " (" + b.Path + ")"
	}
	switch b.Status {
	case StatusApplied:
		verb := "applied"
		if !written {
			verb = "would apply"
		}
		fmt.Fprintf(&s, "%s: %s%s.\n", name, verb, b.where())
		if b.Message != "" {
			fmt.Fprintf(&s, "  %s.\n", b.Message)
		}
		return s.String()
	case StatusAlreadyApplied:
		fmt.Fprintf(&s, "%s: already applied (%s); do not resend it.\n", name, b.Message)
		return s.String()
	case StatusIncomplete:
		fmt.Fprintf(&s, "%s: INCOMPLETE, nothing of it was applied: %s.\n", name, b.Message)
		return s.String()
	}
	fmt.Fprintf(&s, "%s: REFUSED (%s): %s.\n", name, b.Reason, b.Message)
	if w := b.Nearest; w != nil && w.Diff == "" && w.Similarity == 1 {
		fmt.Fprintf(&s, "  Nearest text: lines %d–%d, identical to the quoted lines.\n", w.Start, w.End)
	} else if w != nil {
		fmt.Fprintf(&s, "  Nearest text: lines %d–%d (similarity %.0f%%). Differences (→ tab, · space):\n%s",
			w.Start, w.End, w.Similarity*100, w.Diff)
		s.WriteString("  Copy SEARCH exactly from the file (read the lines again if unsure).\n")
	}
	return s.String()
}

// where describes the matched lines and level of an applied block.
func (b BlockResult) where() string {
	if b.Start == 0 {
		return ""
	}
	s := fmt.Sprintf(" at lines %d–%d", b.Start, b.End)
	switch b.Level {
	case "", "exact", "lines":
	case "create":
		s += " (new file)"
	case "whole":
		s += " (whole file)"
	default:
		s += " (matched " + b.Level + ")"
	}
	return s
}
