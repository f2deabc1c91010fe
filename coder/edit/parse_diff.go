package edit

import (
	"strconv"
	"strings"
)

// hunkRange is a parsed "@@ -l,n +l,n @@" header. Counts default to 1.
type hunkRange struct {
	oldStart, oldCount int
	newStart, newCount int
}

// hunkHeader parses a unified-diff hunk header.
func hunkHeader(l string) (hunkRange, bool) {
	var h hunkRange
	if !strings.HasPrefix(l, "@@ -") {
		return h, false
	}
	rest := l[len("@@ -"):]
	end := strings.Index(rest, " @@")
	if end < 0 {
		return h, false
	}
	parts := strings.Fields(rest[:end])
	if len(parts) != 2 || !strings.HasPrefix(parts[1], "+") {
		return h, false
	}
	var ok1, ok2 bool
	h.oldStart, h.oldCount, ok1 = parseRange(parts[0])
	h.newStart, h.newCount, ok2 = parseRange(parts[1][1:])
	return h, ok1 && ok2
}

// parseRange parses "l" or "l,n".
func parseRange(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// isDiffHeader reports whether lines[i] starts a unified diff file section:
// "--- old" followed by "+++ new" (possibly after "diff --git"/"index" lines).
func isDiffHeader(lines []string, i int) bool {
	return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
}

// diffPath strips the a/ or b/ prefix and a trailing timestamp from a
// "---"/"+++" header path. It returns "" for /dev/null.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// diff parses one file section of a unified diff: the two header lines and
// its hunks.
func (p *parser) diff() {
	oldPath := diffPath(strings.TrimPrefix(p.lines[p.i], "--- "))
	newPath := diffPath(strings.TrimPrefix(p.lines[p.i+1], "+++ "))
	p.i += 2
	path := newPath
	if path == "" {
		path = oldPath
	}
	if newPath == "" && oldPath != "" {
		p.edits = append(p.edits, Edit{Path: oldPath, Format: FormatDiff, Op: OpDelete})
		p.skipHunks()
		return
	}
	for p.i < len(p.lines) {
		h, ok := hunkHeader(p.lines[p.i])
		if !ok {
			if !strings.HasPrefix(p.lines[p.i], "@@") {
				return
			}
			// "@@" or "@@ ... @@" without numbers: the hunk ends at the
			// first line that cannot belong to it.
			h = hunkRange{oldCount: -1, newCount: -1}
		}
		p.i++
		e := p.hunk(path, h)
		if oldPath == "" {
			e.Op = OpCreate
			e.Search = nil
		}
		if oldPath != "" && newPath != "" && oldPath != newPath && p.opts.Path == "" {
			e.Path = newPath
		}
		p.edits = append(p.edits, e)
	}
}

// hunk reads the lines of one hunk. The header's counts decide where it ends
// when they are consistent; a hunk cut off by the end of the message is
// incomplete.
func (p *parser) hunk(path string, h hunkRange) Edit {
	e := Edit{Path: path, Format: FormatDiff, Op: OpReplace, Hint: h.oldStart}
	if h.oldCount == 0 {
		// Pure insertion after line oldStart: the hint is the next line.
		e.Hint = h.oldStart + 1
	}
	oldN, newN := 0, 0
	pending := 0
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if strings.HasPrefix(l, "@@") || isDiffHeader(p.lines, p.i) || strings.HasPrefix(l, "diff --git ") {
			break
		}
		if h.oldCount >= 0 && oldN >= h.oldCount && newN >= h.newCount && (l == "" || !isHunkLine(l)) {
			break
		}
		if !isHunkLine(l) && l != "" {
			break
		}
		if l == "" {
			pending++
			continue
		}
		for ; pending > 0; pending-- {
			addHunkLine(&e, "")
			oldN++
			newN++
		}
		switch l[0] {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		}
		addHunkLine(&e, l)
	}
	// Empty lines before the next header count as context only when the
	// header says the hunk needs them.
	for ; pending > 0 && oldN < h.oldCount && newN < h.newCount; pending-- {
		addHunkLine(&e, "")
		oldN++
		newN++
	}
	if p.i >= len(p.lines) && (oldN < h.oldCount || newN < h.newCount) {
		e.Problem, e.Detail = ReasonIncomplete, "the message ends before the hunk's last line"
	}
	return e
}

// isHunkLine reports whether l can be part of a hunk body.
func isHunkLine(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\')
}

// skipHunks skips the hunks of a deleted file.
func (p *parser) skipHunks() {
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if isDiffHeader(p.lines, p.i) || strings.HasPrefix(l, "diff --git ") {
			return
		}
		if !strings.HasPrefix(l, "@@") && !isHunkLine(l) && l != "" {
			return
		}
		p.i++
	}
}
