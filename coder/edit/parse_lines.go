package edit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Range is the line span an OpLines edit replaces and the evidence that the
// model saw those lines: the lines themselves (Edit.Search) or the hash the
// read tool showed when it read exactly that span. (A hash of a larger window
// would prove the file unchanged but not that the model counted right.)
type Range struct {
	Start, End int    // 1-based, inclusive: the lines replaced
	Hash       string // WindowHash of lines Start..End as read, "" when Search quotes the lines
}

// WindowHash is the short hash of a window of lines (texts without their
// terminators) that a read tool shows next to the lines, so that a line-range
// edit can prove the window has not changed since it was read.
func WindowHash(lines []string) string {
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:4])
}

// isLinesTag reports whether t opens a <replace-lines> or <remove-lines> tag.
func isLinesTag(t string) bool {
	return strings.HasPrefix(t, "<replace-lines") || strings.HasPrefix(t, "<remove-lines")
}

// linesTag parses
//
//	<replace-lines filePath="p" start="12" end="14" [hash="h"]>
//	------- SEARCH
//	(lines 12–14 exactly as read)
//	=======
//	(new lines)
//	+++++++ REPLACE
//	</replace-lines>
//
// With hash= the body is only the new lines. <remove-lines> carries the
// lines it removes as its body (or nothing, with hash=). Bodies are taken
// verbatim, blank lines and fences included: the range says how many lines
// there are.
func (p *parser) linesTag() {
	open := strings.TrimSpace(p.lines[p.i])
	remove := strings.HasPrefix(open, "<remove-lines")
	closing := "</replace-lines>"
	if remove {
		closing = "</remove-lines>"
	}
	attrs, rest, _ := strings.Cut(open, ">")
	var body []string
	if strings.TrimSpace(rest) != "" && !strings.HasPrefix(strings.TrimSpace(rest), closing) {
		body = append(body, rest)
	}
	closed := strings.Contains(rest, closing)
	j := p.i + 1
	for ; !closed && j < len(p.lines); j++ {
		l := p.lines[j]
		if k := strings.Index(l, closing); k >= 0 {
			if strings.TrimSpace(l[:k]) != "" {
				body = append(body, l[:k])
			}
			closed = true
			break
		}
		body = append(body, l)
	}
	p.i = j + 1
	e := Edit{Path: attr(attrs, "filePath"), Format: FormatLines, Op: OpLines}
	if e.Path == "" {
		e.Path = attr(attrs, "path")
	}
	r, problem := parseLineRange(attrs)
	e.Range = r
	switch {
	case problem != "":
		e.Problem, e.Detail = ReasonMalformed, problem
	case !closed:
		e.Problem, e.Detail = ReasonIncomplete, "the message ends before "+closing
	case remove:
		e.Search = body
	default:
		p.linesBody(&e, body)
	}
	if e.Problem == "" && r.Hash == "" && len(e.Search) == 0 {
		e.Problem, e.Detail = ReasonMalformed, "quote the lines being replaced (a SEARCH section, or the body of <remove-lines>) or give hash= from read_file"
	}
	p.edits = append(p.edits, e)
}

// linesBody fills Search and Replace from a <replace-lines> body: one
// SEARCH/REPLACE block, or (with hash=) just the new lines.
func (p *parser) linesBody(e *Edit, body []string) {
	if !hasSRMarker(body) {
		e.Replace = body
		return
	}
	sub := &parser{lines: body, opts: p.opts}
	for sub.i < len(sub.lines) {
		if isSearchMarker(sub.lines[sub.i]) {
			sub.searchReplace(e.Path, FormatLines, len(sub.lines))
			continue
		}
		sub.i++
	}
	if len(sub.edits) != 1 {
		e.Problem, e.Detail = ReasonMalformed, fmt.Sprintf("a <replace-lines> tag holds one SEARCH/REPLACE block, not %d", len(sub.edits))
		return
	}
	got := sub.edits[0]
	e.Search, e.Replace = got.Search, got.Replace
	if got.Problem != "" {
		e.Problem, e.Detail = got.Problem, got.Detail
	}
}

// parseLineRange reads start=, end= and hash= from a tag's attributes.
func parseLineRange(attrs string) (*Range, string) {
	r := &Range{Hash: strings.ToLower(strings.TrimSpace(attr(attrs, "hash")))}
	var err error
	if r.Start, err = strconv.Atoi(strings.TrimSpace(attr(attrs, "start"))); err != nil || r.Start < 1 {
		return r, "start= must be a line number (1-based)"
	}
	end := strings.TrimSpace(attr(attrs, "end"))
	if end == "" {
		r.End = r.Start
	} else if r.End, err = strconv.Atoi(end); err != nil || r.End < r.Start {
		return r, "end= must be a line number not before start= (the range is inclusive)"
	}
	return r, ""
}
