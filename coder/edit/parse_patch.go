package edit

import "strings"

// Codex apply_patch (V4A) directives.
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File:"
	patchUpdate = "*** Update File:"
	patchDelete = "*** Delete File:"
	patchMove   = "*** Move to:"
	patchEOF    = "*** End of File"
)

// patch parses a Codex patch from "*** Begin Patch" to "*** End Patch".
func (p *parser) patch() {
	p.i++
	for p.i < len(p.lines) {
		t := strings.TrimSpace(p.lines[p.i])
		switch {
		case t == patchEnd:
			p.i++
			return
		case strings.HasPrefix(t, patchAdd):
			p.patchAdd(strings.TrimSpace(strings.TrimPrefix(t, patchAdd)))
		case strings.HasPrefix(t, patchDelete):
			path := strings.TrimSpace(strings.TrimPrefix(t, patchDelete))
			p.edits = append(p.edits, Edit{Path: path, Format: FormatPatch, Op: OpDelete})
			p.i++
		case strings.HasPrefix(t, patchUpdate):
			p.patchUpdate(strings.TrimSpace(strings.TrimPrefix(t, patchUpdate)))
		default:
			p.i++
		}
	}
	// The message ended without "*** End Patch": the last block may be cut.
	if n := len(p.edits); n > 0 && p.edits[n-1].Format == FormatPatch && p.edits[n-1].Problem == "" {
		p.edits[n-1].Problem, p.edits[n-1].Detail = ReasonIncomplete, "the message ends before *** End Patch"
	}
}

// isPatchDirective reports whether t (trimmed) starts a new patch section.
func isPatchDirective(t string) bool {
	for _, d := range []string{patchEnd, patchAdd, patchUpdate, patchDelete} {
		if strings.HasPrefix(t, d) {
			return true
		}
	}
	return false
}

// patchAdd parses "*** Add File: PATH" and its "+" lines.
func (p *parser) patchAdd(path string) {
	e := Edit{Path: path, Format: FormatPatch, Op: OpCreate}
	for p.i++; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if isPatchDirective(strings.TrimSpace(l)) {
			break
		}
		if strings.HasPrefix(l, "+") {
			e.Replace = append(e.Replace, l[1:])
		} else if e.Problem == "" && strings.TrimSpace(l) != "" {
			e.Problem, e.Detail = ReasonMalformed, "every line of an added file must start with +"
		}
	}
	if e.Replace == nil {
		e.Replace = []string{}
	}
	p.edits = append(p.edits, e)
}

// patchUpdate parses "*** Update File: PATH", an optional "*** Move to:" and
// its hunks.
func (p *parser) patchUpdate(path string) {
	p.i++
	moveTo := ""
	if p.i < len(p.lines) {
		if t := strings.TrimSpace(p.lines[p.i]); strings.HasPrefix(t, patchMove) {
			moveTo = strings.TrimSpace(strings.TrimPrefix(t, patchMove))
			p.i++
		}
	}
	var anchors []string
	var cur *Edit
	pending := 0 // empty lines not yet known to be inside the hunk
	flush := func() {
		pending = 0
		if cur != nil && (len(cur.Search) > 0 || len(cur.Replace) > 0 || cur.AtEOF) {
			p.edits = append(p.edits, *cur)
		}
		cur = nil
	}
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		if isPatchDirective(t) {
			break
		}
		switch {
		case strings.HasPrefix(l, "@@"):
			if cur != nil && (len(cur.Search) > 0 || len(cur.Replace) > 0) {
				flush()
				anchors = nil
			}
			hint := 0
			if a := strings.TrimSpace(strings.TrimPrefix(l, "@@")); a != "" {
				if h, ok := hunkHeader(l); ok {
					hint = h.oldStart
				} else {
					anchors = append(anchors, a)
				}
			}
			cur = &Edit{Path: path, Format: FormatPatch, Op: OpReplace, Hint: hint, Anchors: append([]string(nil), anchors...)}
			continue
		case t == patchEOF:
			if cur != nil {
				cur.AtEOF = true
			}
			continue
		}
		if l == "" {
			pending++
			continue
		}
		if cur == nil {
			cur = &Edit{Path: path, Format: FormatPatch, Op: OpReplace}
		}
		for ; pending > 0; pending-- {
			addHunkLine(cur, "")
		}
		addHunkLine(cur, l)
	}
	flush()
	if moveTo != "" {
		p.edits = append(p.edits, Edit{Path: path, Format: FormatPatch, Op: OpMove, MoveTo: moveTo})
	}
}

// addHunkLine adds one " "/"-"/"+" line of a patch or diff hunk. A line with
// no prefix (models often drop the space of a context line) is context.
func addHunkLine(e *Edit, l string) {
	switch {
	case l == "":
		e.Search = append(e.Search, "")
		e.Replace = append(e.Replace, "")
		e.pairs = append(e.pairs, len(e.Search)-1)
	case l[0] == ' ':
		e.Search = append(e.Search, l[1:])
		e.Replace = append(e.Replace, l[1:])
		e.pairs = append(e.pairs, len(e.Search)-1)
	case l[0] == '-':
		e.Search = append(e.Search, l[1:])
	case l[0] == '+':
		e.Replace = append(e.Replace, l[1:])
		e.pairs = append(e.pairs, -1)
	case l[0] == '\\':
		// "\ No newline at end of file": the engine keeps the file's state.
	default:
		e.Search = append(e.Search, l)
		e.Replace = append(e.Replace, l)
		e.pairs = append(e.pairs, len(e.Search)-1)
	}
}
