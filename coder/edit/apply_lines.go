package edit

import (
	"fmt"
	"sort"
	"strings"
)

// lineItem is one OpLines edit waiting to be checked and spliced.
type lineItem struct {
	i   int // index in the message
	e   Edit
	fs  *fileState
	res BlockResult
}

// applyLines applies the message's line-range edits before any other block,
// since their numbers refer to the files as the model read them. Per file,
// overlapping ranges are refused, every range is checked against the lines
// the model quoted (or the window hash it was shown), and the ranges that
// pass are spliced from the bottom of the file up so that the numbers of
// the ranges above stay valid. It fills rep.Blocks for those edits.
func (w *workspace) applyLines(edits []Edit, rep *Report) {
	groups := map[string][]*lineItem{}
	var order []string
	for i, e := range edits {
		if e.Op != OpLines {
			continue
		}
		fs, res, ok := w.target(e)
		if ok && w.opts.NoLineRanges {
			res.Reason, res.Message, ok = ReasonMalformed, "line ranges are switched off here; use SEARCH/REPLACE blocks", false
		}
		if !ok {
			rep.Blocks[i] = res
			continue
		}
		if groups[fs.path] == nil {
			order = append(order, fs.path)
		}
		groups[fs.path] = append(groups[fs.path], &lineItem{i: i, e: e, fs: fs, res: res})
	}
	for _, p := range order {
		items := groups[p]
		refuseOverlaps(items)
		var ok []*lineItem
		for _, it := range items {
			if it.res.Reason != "" {
				continue
			}
			if reason, msg := it.fs.checkRange(it.e); reason != "" {
				it.res.Reason, it.res.Message = reason, msg
				continue
			}
			ok = append(ok, it)
		}
		sort.Slice(ok, func(a, b int) bool { return ok[a].e.Range.Start > ok[b].e.Range.Start })
		for _, it := range ok {
			r, repl := it.e.Range, it.e.Replace
			if r.Start == 1 {
				repl = stripBOM(repl)
			}
			it.fs.splice(r.Start-1, r.End, repl)
			it.res.Status, it.res.Level = StatusApplied, "lines"
			it.res.Start, it.res.End = r.Start, r.Start+len(repl)-1
			if len(repl) == 0 {
				it.res.Start, it.res.End = 0, 0
				it.res.Message = fmt.Sprintf("removed lines %d–%d", r.Start, r.End)
			}
		}
		for _, it := range items {
			rep.Blocks[it.i] = it.res
		}
	}
}

// refuseOverlaps refuses every range of one file that shares a line with
// another: which of them the model meant is not knowable.
func refuseOverlaps(items []*lineItem) {
	for a, x := range items {
		for _, y := range items[a+1:] {
			rx, ry := x.e.Range, y.e.Range
			if rx.Start > ry.End || ry.Start > rx.End {
				continue
			}
			x.res.Reason = ReasonOverlap
			x.res.Message = fmt.Sprintf("lines %d–%d overlap block %d (lines %d–%d); merge them into one range", rx.Start, rx.End, y.e.Index, ry.Start, ry.End)
			y.res.Reason = ReasonOverlap
			y.res.Message = fmt.Sprintf("lines %d–%d overlap block %d (lines %d–%d); merge them into one range", ry.Start, ry.End, x.e.Index, rx.Start, rx.End)
		}
	}
}

// checkRange verifies that the file still holds what the model saw at the
// range: the quoted lines (trailing spaces aside, read_file's line-number
// prefixes tolerated) and the window hash. It never moves the range.
func (fs *fileState) checkRange(e Edit) (Reason, string) {
	r := e.Range
	if !fs.exists {
		return ReasonFileMissing, fmt.Sprintf("%s does not exist; create it with a <file-edit> and an empty SEARCH", fs.path)
	}
	texts := fs.doc.texts()
	n := len(texts)
	if r.End > n {
		return ReasonStale, fmt.Sprintf("%s has %d lines, so lines %d–%d are not there; read the file again", fs.path, n, r.Start, r.End)
	}
	cur := texts[r.Start-1 : r.End]
	if r.Hash != "" {
		if h := WindowHash(cur); h != r.Hash {
			return ReasonStale, fmt.Sprintf("lines %d–%d hash to %s, not %s: the file changed since you read them, or the numbers are off; read them again and resend", r.Start, r.End, h, r.Hash)
		}
	}
	if len(e.Search) > 0 && !sameLines(e.Search, cur) {
		if s, _, ok := stripNumbers(e.Search); !ok || !sameLines(s, cur) {
			return ReasonStale, quoteMismatch(e.Search, cur, r)
		}
	}
	if l, ok := newLazyMarker(cur, e.Replace); ok {
		return ReasonMalformed, fmt.Sprintf("the new lines contain %q, which would be written into the file literally; write the code out in full", strings.TrimSpace(l))
	}
	if equalLines(cur, e.Replace) {
		return ReasonNoChange, fmt.Sprintf("the new lines equal lines %d–%d; nothing would change", r.Start, r.End)
	}
	return "", ""
}

// sameLines compares quoted lines with the file's, ignoring trailing spaces.
func sameLines(quoted, cur []string) bool {
	if len(quoted) != len(cur) {
		return false
	}
	for k := range quoted {
		if strings.TrimRight(quoted[k], " \t\r") != strings.TrimRight(cur[k], " \t\r") {
			return false
		}
	}
	return true
}

// quoteMismatch explains how the quoted lines differ from the range.
func quoteMismatch(quoted, cur []string, r *Range) string {
	if len(quoted) != len(cur) {
		return fmt.Sprintf("you quoted %d lines for the %d lines %d–%d; the range and the quoted lines must agree", len(quoted), len(cur), r.Start, r.End)
	}
	for k := range quoted {
		if strings.TrimRight(quoted[k], " \t\r") != strings.TrimRight(cur[k], " \t\r") {
			return fmt.Sprintf("line %d is %q, not %q as quoted: the file changed since you read it, or the numbers are off", r.Start+k, clip(cur[k], 120), clip(quoted[k], 120))
		}
	}
	return "the quoted lines differ from the range"
}
