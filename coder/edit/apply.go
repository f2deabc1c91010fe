package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// fileState is the in-memory view of one file while a message is applied.
// Blocks change it in order; disk is touched only at the end.
type fileState struct {
	path    string
	orig    string // content on disk when loaded ("" if missing)
	existed bool   // the file existed on disk
	exists  bool   // the file exists in the in-memory view
	mode    fs.FileMode
	doc     *doc
	norm    normCache
	splices []spliceRec // applied changes, to map line hints to current lines
	offset  int         // observed hint error (actual - hinted), once known
	hasOff  bool
	unit    int // cached spaceUnit, 0 until computed
}

// spliceRec records one change: oldN lines at at became newN lines.
type spliceRec struct{ at, oldN, newN int }

// splice replaces lines [start, end) of the current content with repl.
func (fs *fileState) splice(start, end int, repl []string) {
	fs.doc.splice(start, end, repl)
	fs.norm.splice(start, end, repl)
	fs.splices = append(fs.splices, spliceRec{start, end - start, len(repl)})
}

// reset replaces the document (whole-file writes, creations).
func (fs *fileState) reset(d *doc) {
	fs.doc = d
	fs.norm = normCache{}
	fs.splices = append(fs.splices, spliceRec{0, 1 << 30, 0})
}

// style looks at the indented lines within 20 lines of [start, end) (the
// whole file when none is that near) and at the file's space indentation
// unit.
func (fs *fileState) style(start, end int) style {
	lines := fs.doc.lines
	t, sp := indentKinds(lines[max(0, start-20):min(len(lines), end+20)])
	if t == 0 && sp == 0 {
		// A block amid unindented lines (a long doc comment, top-level
		// declarations) still writes new indented lines in the file's style.
		t, sp = indentKinds(lines)
	}
	if t == 0 && sp == 0 && fs.existed {
		// Earlier blocks may have removed every indented line: the file
		// as loaded still shows its style.
		t, sp = indentKinds(parseDoc(fs.orig).lines)
	}
	st := style{tabsOnly: t > 0 && sp == 0, spacesOnly: sp > 0 && t == 0, unit: tabWidth}
	if st.spacesOnly {
		st.unit = fs.spaceUnit()
	}
	return st
}

// indentKinds counts the non-blank lines indented with a tab and with
// spaces. A block comment's " * " continuation line and a lead of spaces
// then a tab (a slip) say nothing about the file's indentation.
func indentKinds(lines []line) (tabs, spaces int) {
	for _, l := range lines {
		if isBlank(l.text) {
			continue
		}
		lead := leadWS(l.text)
		switch {
		case lead == "":
		case lead[0] == '\t':
			tabs++
		case lead == " " && l.text[1] == '*', strings.Contains(lead, "\t"):
		default:
			spaces++
		}
	}
	return tabs, spaces
}

// spaceUnit guesses the file's space indentation unit: the smallest common
// step of space-indented lines, 2 or 4 (4 when unsure).
func (fs *fileState) spaceUnit() int {
	if fs.unit == 0 {
		fs.unit = fs.computeSpaceUnit()
	}
	return fs.unit
}

func (fs *fileState) computeSpaceUnit() int {
	two, four := 0, 0
	for _, l := range fs.doc.lines {
		w := len(l.text) - len(strings.TrimLeft(l.text, " "))
		if w == 0 || isBlank(l.text) {
			continue
		}
		if w%4 == 0 {
			four++
		} else if w%2 == 0 {
			two++
		}
	}
	if two > 0 && two*10 >= four {
		return 2
	}
	return 4
}

// workspace holds the file states of one Apply call.
type workspace struct {
	root  *os.Root
	opts  Options
	files map[string]*fileState
	// firstPass is set while the blocks are applied in message order; an
	// ambiguous block whose line hint is not calibrated yet waits for the
	// retry pass (see hints.hold).
	firstPass bool
}

// file returns the state of path, loading it on first use.
func (w *workspace) file(p string) (*fileState, Reason, error) {
	if fs, ok := w.files[p]; ok {
		return fs, "", nil
	}
	data, mode, exists, reason, err := loadFile(w.root, p)
	if err != nil {
		return nil, reason, err
	}
	fs := &fileState{path: p, orig: data, existed: exists, exists: exists, mode: mode, doc: parseDoc(data)}
	if !exists {
		fs.mode = 0o644
	}
	w.files[p] = fs
	return fs, "", nil
}

// Apply parses text and applies its edits to the files under root.
//
// Model-fixable problems (no match, ambiguous match, bad path, cut-off
// block) are reported per block in the Report, never as an error; the error
// is for our own failures (the root cannot be opened, a write fails). By
// default Apply is atomic: when any block is refused no file is written.
// With opts.Partial the blocks that applied are written. Apply is safe for
// concurrent use on different roots.
func Apply(root string, text string, opts Options) (*Report, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", root, err)
	}
	defer r.Close()
	return ApplyIn(r, text, opts)
}

// ApplyIn is Apply through a root the caller opened and keeps (the coder
// hands down its workspace's one confined handle); ApplyIn does not close it.
func ApplyIn(r *os.Root, text string, opts Options) (*Report, error) {
	if opts.Format == "" {
		opts.Format = FormatAuto
	}
	edits, err := Parse(text, ParseOptions{Path: opts.Path, Format: opts.Format})
	if errors.Is(err, ErrNoEdits) {
		return &Report{Blocks: []BlockResult{}, Problem: noEditsProblem(opts.Format), Changed: []string{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("parse edits: %w", err)
	}
	w := &workspace{root: r, opts: opts, files: map[string]*fileState{}}
	rep := &Report{Blocks: make([]BlockResult, len(edits)), Changed: []string{}}
	var retry []int
	w.applyLines(edits, rep)
	w.firstPass = true
	for i, e := range edits {
		if e.Op == OpLines {
			continue
		}
		res, again := w.apply(e)
		rep.Blocks[i] = res
		if again {
			retry = append(retry, i)
		}
	}
	w.firstPass = false
	// Blocks may come in any order: a block whose SEARCH is the result of a
	// later block, or whose line hint needed calibration, gets another pass.
	for progress := true; progress && len(retry) > 0; {
		progress = false
		var still []int
		for _, i := range retry {
			res, again := w.apply(edits[i])
			rep.Blocks[i] = res
			if res.Status == StatusRefused && again {
				still = append(still, i)
				continue
			}
			progress = progress || res.Status != StatusRefused
		}
		retry = still
	}
	if rep.OK() || opts.Partial {
		changed, err := w.commit()
		if err != nil {
			return nil, err
		}
		rep.Changed = changed
		rep.Written = len(changed) > 0
	}
	w.diagnose(rep, edits)
	return rep, nil
}

// noEditsProblem explains a message without any recognisable block.
func noEditsProblem(f Format) string {
	if f == FormatAuto {
		return "no edit blocks found: use <file-edit filePath=\"...\"> with ------- SEARCH / ======= / +++++++ REPLACE blocks, a *** Begin Patch patch, or a unified diff"
	}
	return fmt.Sprintf("no %s edit found in the text", f)
}

// commit writes every changed file and returns the changed paths, sorted.
func (w *workspace) commit() ([]string, error) {
	paths := make([]string, 0, len(w.files))
	for p := range w.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	changed := []string{}
	// Write new content first, delete last, so a move never loses data.
	for _, p := range paths {
		fs := w.files[p]
		if !fs.exists {
			continue
		}
		data := fs.doc.bytes()
		if fs.existed && string(data) == fs.orig {
			continue
		}
		if err := writeAtomic(w.root, p, data, fs.mode); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	for _, p := range paths {
		fs := w.files[p]
		if fs.exists || !fs.existed {
			continue
		}
		if err := w.root.Remove(strings.ReplaceAll(p, "/", string(os.PathSeparator))); err != nil {
			return changed, fmt.Errorf("delete %s: %w", p, err)
		}
		changed = append(changed, p)
	}
	sort.Strings(changed)
	return changed, nil
}
