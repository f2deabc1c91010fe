package edit

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// apply runs one edit against the in-memory state. The second result asks
// for another attempt after the other blocks (a SEARCH not found yet, or an
// ambiguity a line hint may settle once calibrated).
func (w *workspace) apply(e Edit) (BlockResult, bool) {
	fs, res, ok := w.target(e)
	if !ok {
		return res, false
	}
	switch e.Op {
	case OpCreate:
		return w.create(fs, e.Replace, res), false
	case OpWhole:
		return w.whole(fs, e.Replace, res), false
	case OpDelete:
		return w.remove(fs, res), false
	case OpMove:
		return w.move(fs, e.MoveTo, res), false
	case OpLazy:
		return w.lazy(fs, e, res), false
	}
	return w.replace(fs, e, res)
}

// target checks an edit's parse problems and path and loads its file; when
// it reports false the result says why the block is refused.
func (w *workspace) target(e Edit) (*fileState, BlockResult, bool) {
	res := BlockResult{Index: e.Index, Path: e.Path, Format: e.Format, Op: e.Op, Status: StatusRefused}
	if e.Problem != "" {
		res.Reason, res.Message = e.Problem, e.Detail
		if e.Problem == ReasonIncomplete {
			res.Status = StatusIncomplete
		}
		return nil, res, false
	}
	if e.Path == "" {
		res.Reason, res.Message = ReasonNoPath, "the block names no file; add filePath=\"...\" or a path line before it"
		return nil, res, false
	}
	p, err := cleanPath(e.Path)
	if err != nil {
		res.Reason, res.Message = ReasonBadPath, err.Error()
		return nil, res, false
	}
	res.Path = p
	if reason, why := w.refusal(p); reason != "" {
		res.Reason, res.Message = reason, why
		return nil, res, false
	}
	fs, reason, err := w.file(p)
	if err != nil {
		res.Reason, res.Message = reason, err.Error()
		return nil, res, false
	}
	return fs, res, true
}

// refusal says why the clean path p may not be written, before its file is
// read: a git submodule (Options.Submodules) or a path Options.Blocked
// refuses; "" when it may.
func (w *workspace) refusal(p string) (Reason, string) {
	for _, s := range w.opts.Submodules {
		s = path.Clean(filepath.ToSlash(s))
		switch {
		case p == s:
			return ReasonSubmodule, fmt.Sprintf("%s is a git submodule (a pointer to a commit of another repository), "+
				"not a file of this repository; the bot cannot change it, so leave it out", p)
		case strings.HasPrefix(p, s+"/"):
			return ReasonSubmodule, fmt.Sprintf("%s lies in the git submodule %s (another repository, pinned at a commit); "+
				"the bot cannot change its files, so leave it out", p, s)
		}
	}
	if w.opts.Blocked != nil && w.opts.Blocked(p) {
		return ReasonBlocked, fmt.Sprintf("%s may not be changed", p)
	}
	return "", ""
}

// create makes a new file; the file must not exist (an empty one is fine).
// A new file that starts with "#!" is made executable.
func (w *workspace) create(fs *fileState, content []string, res BlockResult) BlockResult {
	if fs.exists && len(fs.doc.lines) > 0 {
		if equalLines(fs.doc.texts(), content) {
			res.Status, res.Message = StatusAlreadyApplied, "the file already has this content"
			return res
		}
		res.Reason = ReasonFileExists
		res.Message = fmt.Sprintf("%s already exists; use SEARCH/REPLACE blocks to change it", fs.path)
		return res
	}
	d := &doc{eol: eolLF, finalNL: true}
	if fs.exists {
		d = fs.doc.clone()
	}
	if !fs.existed && len(content) > 0 && strings.HasPrefix(content[0], "#!") {
		fs.mode = 0o755 // a new script runs, as `git add` of one made executable would
	}
	d.setTexts(content)
	fs.reset(d)
	fs.exists = true
	res.Status, res.Level = StatusApplied, "create"
	res.Start, res.End = min(1, len(content)), len(content)
	return res
}

// whole replaces the file's content (or creates it), keeping its line
// terminators, BOM and final-newline state.
func (w *workspace) whole(fs *fileState, content []string, res BlockResult) BlockResult {
	if !fs.exists {
		return w.create(fs, content, res)
	}
	if fs.doc.bom {
		content = stripBOM(content)
	}
	if equalLines(fs.doc.texts(), content) {
		res.Status, res.Message = StatusAlreadyApplied, "the file already has this content"
		return res
	}
	d := fs.doc.clone()
	d.setTexts(content)
	fs.reset(d)
	res.Status, res.Level = StatusApplied, "whole"
	res.Start, res.End = 1, len(content)
	return res
}

// remove deletes the file.
func (w *workspace) remove(fs *fileState, res BlockResult) BlockResult {
	if !fs.exists {
		res.Reason, res.Message = ReasonFileMissing, fmt.Sprintf("%s does not exist", fs.path)
		return res
	}
	fs.exists = false
	fs.reset(&doc{eol: fs.doc.eol, finalNL: true})
	res.Status = StatusApplied
	return res
}

// move renames the file to dst, which must not exist.
func (w *workspace) move(fs *fileState, dst string, res BlockResult) BlockResult {
	if !fs.exists {
		res.Reason, res.Message = ReasonFileMissing, fmt.Sprintf("%s does not exist", fs.path)
		return res
	}
	p, err := cleanPath(dst)
	if err != nil {
		res.Reason, res.Message = ReasonBadPath, err.Error()
		return res
	}
	if reason, why := w.refusal(p); reason != "" {
		res.Reason, res.Message = reason, why
		return res
	}
	to, reason, err := w.file(p)
	if err != nil {
		res.Reason, res.Message = reason, err.Error()
		return res
	}
	if to.exists {
		res.Reason, res.Message = ReasonFileExists, fmt.Sprintf("cannot move %s to %s: it exists", fs.path, p)
		return res
	}
	to.reset(fs.doc.clone())
	to.exists = true
	to.mode = fs.mode
	fs.exists = false
	res.Status, res.Message = StatusApplied, fmt.Sprintf("moved to %s", p)
	return res
}

// replace places one SEARCH/REPLACE block (also a patch or diff hunk).
func (w *workspace) replace(fs *fileState, e Edit, res BlockResult) (BlockResult, bool) {
	search, repl := e.Search, e.Replace
	if len(search) == 0 && e.Anchors == nil && !e.AtEOF {
		if len(repl) == 0 {
			switch {
			case !fs.exists: // an empty new file: a package marker, .gitkeep
				return w.create(fs, nil, res), false
			case len(fs.doc.lines) == 0:
				res.Status, res.Message = StatusAlreadyApplied, "the file already exists and is empty"
			default:
				res.Reason, res.Message = ReasonMalformed, "both SEARCH and REPLACE are empty"
			}
			return res, false
		}
		if !fs.exists || len(fs.doc.lines) == 0 {
			return w.create(fs, repl, res), false
		}
		if equalLines(fs.doc.texts(), stripBOM(repl)) {
			// A create resent after it was written (a resumed run): the
			// file holds exactly that content, whatever its line endings.
			res.Status, res.Message = StatusAlreadyApplied, "the file already has this content"
			return res, false
		}
		res.Reason = ReasonFileExists
		res.Message = fmt.Sprintf("SEARCH is empty but %s exists; quote the lines to change in SEARCH", fs.path)
		if e.Format == FormatDiff || e.Format == FormatPatch {
			res.Reason = ReasonNotFound
			res.Message = "the hunk has no context or removed lines, so it cannot be placed (line numbers are only hints); include at least one unchanged line"
		}
		return res, false
	}
	if !fs.exists {
		res.Reason, res.Message = ReasonFileMissing, fmt.Sprintf("%s does not exist; to create it use an empty SEARCH", fs.path)
		return res, false
	}
	if len(search) == 0 {
		return w.insertAt(fs, e, res), false
	}
	if equalLines(search, repl) {
		res.Reason, res.Message = ReasonNoChange, "SEARCH and REPLACE are identical; nothing would change"
		return res, false
	}
	if l, ok := newLazyMarker(search, repl); ok {
		res.Reason = ReasonMalformed
		res.Message = fmt.Sprintf("REPLACE contains %q, which would be written into the file literally; write the code out in full", strings.TrimSpace(l))
		return res, false
	}
	search, repl = stripBOM(search), stripBOM(repl)
	h := hintsOf(e)
	h.hold = w.firstPass && e.Hint > 0 && !fs.hasOff
	pl, out := fs.place(search, repl, e.pairs, h)
	if out.reason != "" {
		if out.reason == ReasonNotFound && fs.alreadyApplied(search, repl) {
			res.Status, res.Message = StatusAlreadyApplied, "the REPLACE text is already in the file"
			return res, false
		}
		res.Reason, res.Message, res.Candidates = out.reason, out.message, out.cands
		return res, out.reason == ReasonNotFound || (out.reason == ReasonAmbiguous && e.Hint > 0)
	}
	fs.observe(e.Hint, pl[0].start)
	for i := len(pl) - 1; i >= 0; i-- {
		fs.splice(pl[i].start, pl[i].end, pl[i].repl)
	}
	res.Status, res.Level = StatusApplied, out.level
	res.Start, res.End = pl[0].start+1, pl[len(pl)-1].end
	if res.End < res.Start {
		res.End = res.Start
	}
	return res, false
}

// minAddedChars is how much new text (non-space characters in the lines
// REPLACE adds) a block needs before finding its REPLACE text in the file
// counts as "already applied": a short added line such as "}" or "done" is
// found by chance and would hide a stale SEARCH.
const minAddedChars = 24

// alreadyApplied reports whether the REPLACE text is present exactly once
// while SEARCH is not, and REPLACE adds enough text SEARCH lacks (a pure
// deletion can never be recognised as done).
func (fs *fileState) alreadyApplied(search, repl []string) bool {
	if len(repl) == 0 {
		return false
	}
	added := 0
	for j, k := range align(search, repl) {
		if k < 0 {
			added += len(strings.Join(strings.Fields(repl[j]), ""))
		}
	}
	if added < minAddedChars {
		return false
	}
	for _, lv := range []level{levelExact, levelTrailing} {
		switch len(fs.candidates(lv, repl)) {
		case 0:
			continue
		case 1:
			return true
		default:
			return false
		}
	}
	return false
}

// newLazyMarker finds a "... existing code ..." line in REPLACE that SEARCH
// does not have: in a SEARCH/REPLACE block it is not a marker but text.
func newLazyMarker(search, repl []string) (string, bool) {
	have := map[string]bool{}
	for _, l := range search {
		have[strings.TrimSpace(l)] = true
	}
	for _, l := range repl {
		if isLazyMarker(l) && !have[strings.TrimSpace(l)] {
			return l, true
		}
	}
	return "", false
}

// stripBOM drops a byte order mark the model copied at the start of its
// first line: the document keeps the file's BOM apart from its lines.
func stripBOM(lines []string) []string {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], bom) {
		return lines
	}
	out := append([]string(nil), lines...)
	out[0] = strings.TrimPrefix(out[0], bom)
	return out
}

// insertAt places a patch hunk that has no context lines: at the end of the
// file (*** End of File) or right after its @@ anchor line.
func (w *workspace) insertAt(fs *fileState, e Edit, res BlockResult) BlockResult {
	at, level := len(fs.doc.lines), "end_of_file"
	if !e.AtEOF {
		level = "anchor"
		pos, ok := fs.anchorLine(e.Anchors)
		if !ok {
			res.Reason, res.Message = ReasonNotFound, "the @@ anchor is not a unique line of the file; add context lines"
			return res
		}
		at = pos + 1
	}
	fs.splice(at, at, e.Replace)
	res.Status, res.Level = StatusApplied, level
	res.Start, res.End = at+1, at+len(e.Replace)
	return res
}
