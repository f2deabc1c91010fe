package edit

// Format names an edit format. FormatAuto detects the format from the text.
type Format string

// The formats the engine understands.
const (
	FormatAuto          Format = "auto"           // detect from the text (the default)
	FormatSearchReplace Format = "search-replace" // SEARCH/REPLACE blocks (<file-edit> or path + fence)
	FormatPatch         Format = "patch"          // Codex apply_patch (*** Begin Patch)
	FormatDiff          Format = "diff"           // unified diff; line numbers are hints only
	FormatLazy          Format = "lazy"           // new code with "... existing code ..." markers
	FormatWhole         Format = "whole"          // the whole new content of one file
	FormatLines         Format = "lines"          // <replace-lines>/<remove-lines start= end=>: line ranges, checked
)

// Formats lists the values accepted by ParseFormat, for help texts.
func Formats() []Format {
	return []Format{FormatAuto, FormatSearchReplace, FormatPatch, FormatDiff, FormatLazy, FormatWhole, FormatLines}
}

// ParseFormat maps a format name (or a short alias) to a Format. It reports
// false for an unknown name.
func ParseFormat(s string) (Format, bool) {
	switch s {
	case "", "auto":
		return FormatAuto, true
	case "search-replace", "sr", "search_replace", "searchreplace":
		return FormatSearchReplace, true
	case "patch", "codex", "apply_patch":
		return FormatPatch, true
	case "diff", "udiff", "unified":
		return FormatDiff, true
	case "lazy":
		return FormatLazy, true
	case "whole", "whole-file", "file":
		return FormatWhole, true
	case "lines", "line-range", "replace_lines", "replace-lines":
		return FormatLines, true
	}
	return "", false
}

// Op is what one parsed edit does to its file.
type Op string

// The operations an Edit can carry.
const (
	OpReplace Op = "replace" // replace Search with Replace (an empty Search creates a missing file)
	OpCreate  Op = "create"  // create a new file whose content is Replace
	OpWhole   Op = "whole"   // replace (or create) the whole file with Replace
	OpDelete  Op = "delete"  // delete the file
	OpMove    Op = "move"    // rename the file to MoveTo
	OpLazy    Op = "lazy"    // merge the lazy snippet in Replace into the file
	OpLines   Op = "lines"   // replace (or remove) the lines Range names, once checked
)

// Edit is one parsed block: a unit that is applied, or refused, as a whole.
// Search and Replace hold lines without their line terminators.
type Edit struct {
	Index   int      // 1-based position in the message
	Path    string   // slash path relative to the root as written by the model ("" = Options.Path)
	Format  Format   // the format the block was written in
	Op      Op       // what the block does
	Search  []string // lines to find (OpReplace)
	Replace []string // replacement lines, new content, or lazy snippet
	Hint    int      // 1-based line where Search is expected to start, 0 if unknown
	Anchors []string // Codex "@@ anchor" lines, outermost first: Search starts after them
	AtEOF   bool     // the block must match at the end of the file (*** End of File)
	MoveTo  string   // OpMove: the new path
	Marker  string   // OpLazy: the marker text that stands for unchanged code
	Range   *Range   // OpLines: the lines to replace and how to check them

	// Problem is set when the block could not be parsed completely; such a
	// block is never applied.
	Problem Reason
	Detail  string // human explanation of Problem

	// pairs maps each Replace line of a hunk to the Search line it is the
	// same line of (context), or -1 for added lines; nil for other formats.
	pairs []int
}

// Status is the outcome of one block.
type Status string

// Block outcomes.
const (
	StatusApplied        Status = "applied"         // the block changed its file (or would have, see Report.Written)
	StatusAlreadyApplied Status = "already_applied" // the REPLACE text is already present; nothing to do
	StatusRefused        Status = "refused"         // the block could not be placed safely; see Reason
	StatusIncomplete     Status = "incomplete"      // the message ended inside the block; nothing of it was applied
)

// Reason says why a block was refused.
type Reason string

// Refusal reasons. They are stable strings: the JSON output and the coder use them.
const (
	ReasonNone        Reason = ""
	ReasonNotFound    Reason = "not_found"    // SEARCH occurs nowhere, even loosely
	ReasonAmbiguous   Reason = "ambiguous"    // SEARCH occurs more than once; see Candidates
	ReasonFileMissing Reason = "file_missing" // the target file does not exist
	ReasonFileExists  Reason = "file_exists"  // a create (empty SEARCH) names an existing file
	ReasonNoChange    Reason = "no_change"    // SEARCH equals REPLACE
	ReasonIncomplete  Reason = "incomplete"   // the message was cut off inside the block
	ReasonMalformed   Reason = "malformed"    // markers out of order, missing separator, ...
	ReasonBadPath     Reason = "bad_path"     // absolute, escaping the root, or through a symlink outside it
	ReasonBlocked     Reason = "blocked"      // Options.Blocked refused the path
	ReasonSubmodule   Reason = "submodule"    // the path is, or lies in, a git submodule (Options.Submodules)
	ReasonNoPath      Reason = "no_path"      // the block names no file and Options.Path is empty
	ReasonNotText     Reason = "not_text"     // the target is a directory or otherwise not editable
	ReasonStale       Reason = "stale"        // a line range's lines are not what the model quoted (or hashed)
	ReasonOverlap     Reason = "overlap"      // two line ranges of one message overlap
)

// Window is a span of the file shown to explain a refusal: the closest text to
// the block's SEARCH, never used to apply anything.
type Window struct {
	Start      int     `json:"start"`      // first line, 1-based
	End        int     `json:"end"`        // last line, 1-based, inclusive
	Similarity float64 `json:"similarity"` // 0..1, similarity of the window to SEARCH
	Diff       string  `json:"diff"`       // line-by-line differences with visible whitespace (→ tab, · space)
}

// BlockResult is the outcome of one block.
type BlockResult struct {
	Index      int     `json:"index"`                // 1-based block number in the message
	Path       string  `json:"path"`                 // target path relative to the root
	Format     Format  `json:"format"`               // the block's format
	Op         Op      `json:"op"`                   // what the block does
	Status     Status  `json:"status"`               // applied / already_applied / refused / incomplete
	Reason     Reason  `json:"reason,omitempty"`     // why it was refused
	Message    string  `json:"message,omitempty"`    // one-line explanation for people and models
	Level      string  `json:"level,omitempty"`      // how it was placed: exact, trailing_ws, indent, whitespace, unicode, elision, lazy, anchor, end_of_file, create, whole
	Start      int     `json:"start,omitempty"`      // first matched line (1-based) in the file as the block saw it
	End        int     `json:"end,omitempty"`        // last matched line (1-based, inclusive)
	Candidates []int   `json:"candidates,omitempty"` // start lines of every candidate when ambiguous
	Nearest    *Window `json:"nearest,omitempty"`    // the closest window when not found
}

// Report is the result of Apply: one BlockResult per parsed block, in message
// order.
type Report struct {
	Blocks []BlockResult `json:"blocks"`
	// Changed lists the paths whose content changed on disk (created, edited,
	// deleted or moved, both names of a move), sorted. Empty when nothing was
	// written.
	Changed []string `json:"changed"`
	// Written reports whether files were written. In the default atomic mode
	// nothing is written when any block is refused.
	Written bool `json:"written"`
	// Problem explains a message-level failure, e.g. that it contains no edit.
	Problem string `json:"problem,omitempty"`
}

// OK reports whether every block applied (or was already applied) and the
// message held at least one block.
func (r *Report) OK() bool {
	if r == nil || len(r.Blocks) == 0 || r.Problem != "" {
		return false
	}
	for _, b := range r.Blocks {
		if b.Status != StatusApplied && b.Status != StatusAlreadyApplied {
			return false
		}
	}
	return true
}

// Options configure Apply.
type Options struct {
	// Path is the target file for formats that carry no path (bare
	// SEARCH/REPLACE blocks, whole-file text) and the default for blocks
	// that name none. Slash or OS separators, relative to the root.
	Path string
	// Format forces a format; FormatAuto (or "") detects it.
	Format Format
	// Partial writes the blocks that applied even when others were refused.
	// By default Apply is atomic: any refusal leaves every file untouched.
	Partial bool
	// NoLineRanges refuses line-range edits (<replace-lines>,
	// <remove-lines>) as malformed, for callers that do not offer them.
	NoLineRanges bool
	// Blocked, when set, is asked for every target path (slash, relative);
	// returning true refuses the block with ReasonBlocked.
	Blocked func(path string) bool
	// Submodules are the folders (slash, relative) of the root's git
	// submodules: other repositories pinned at a commit. A block whose path
	// is one of them or lies in one is refused with ReasonSubmodule, whatever
	// Blocked says.
	Submodules []string
}
