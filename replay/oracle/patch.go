package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/issuesmith/issuesmith/work"
)

// Fix is what the gold patch does to one file, in the form a model would
// write it: SEARCH/REPLACE blocks for a file it changes, the whole content
// of a file it adds, nothing for a file it deletes.
type Fix struct {
	Path    string
	Action  work.Action
	Blocks  []Block
	Content string // ActionAdd: the new file
}

// Block is one SEARCH/REPLACE pair.
type Block struct{ Search, Replace string }

// Limit is a change of the gold patch the oracle leaves out, and why: the
// rest of the patch is still answered.
type Limit struct{ Path, Why string }

func (l Limit) String() string { return l.Path + ": " + l.Why }

// gitlinkMode is git's mode of a submodule entry (a gitlink).
const gitlinkMode = 0o160000

// whySubmodule is the Limit of a submodule pointer's change.
const whySubmodule = "a git submodule's pointer (gitlink) moves; the bot cannot change another repository's pin, so it is left as it is"

// symlinkMode is git's mode of a symbolic link.
const symlinkMode = 0o120000

// whySymlink and whyMode are the Limits of changes that are not a file's
// text: edits write files, never links or permission bits.
const (
	whySymlink = "a symbolic link is added, changed or removed; the bot's edits write files, not links, so it is left as it is"
	whyMode    = "only the file's mode changes; the bot's edits write text, not permission bits, so it is left as it is"
)

// whyFinalNewline is the Limit of a file whose only change is the newline
// at its end: SEARCH/REPLACE blocks are lines, and the edit engine keeps a
// file's final-newline state.
const whyFinalNewline = "only the newline at the end of the file changes; line edits keep a file's final newline as it is, so it is left as it is"

// fileFixes' errors for a change that is not a file's text, and the Limit
// each is named with.
var (
	errModeOnly     = errors.New("only the mode changes")
	errFinalNewline = errors.New("only the final newline changes")
	notText         = map[error]string{errModeOnly: whyMode, errFinalNewline: whyFinalNewline}
)

// Base returns a file's content at the base commit (fs.ErrNotExist when
// the file is not there).
type Base func(path string) ([]byte, error)

// Fixes reads a git patch (as `git diff` writes it) into one Fix per file
// it touches, in patch order; a rename is a delete of the old path and an
// add of the new. base gives the files' content before the patch: the
// blocks' SEARCH text is checked against it and widened until it is unique
// there. A git submodule's pointer (a gitlink: added, moved or removed) is
// left out and named in limits, and so are a symbolic link, a change of a
// file's mode only and a file whose only change is its final newline. A
// binary file, a hunk that does not match base, or a patch with nothing but
// limits is an error.
func Fixes(patch string, base Base) (fixes []Fix, limits []Limit, err error) {
	files, _, err := gitdiff.Parse(strings.NewReader(patch))
	if err != nil {
		return nil, nil, fmt.Errorf("read the gold patch: %w", err)
	}
	if len(files) == 0 {
		return nil, nil, errors.New("the gold patch changes no file")
	}
	for _, f := range files {
		if f.OldMode == gitlinkMode || f.NewMode == gitlinkMode {
			limits = append(limits, Limit{Path: fileName(f), Why: whySubmodule})
			continue
		}
		if f.OldMode == symlinkMode || f.NewMode == symlinkMode {
			limits = append(limits, Limit{Path: fileName(f), Why: whySymlink})
			continue
		}
		fx, err := fileFixes(f, base)
		if why, ok := notText[err]; ok {
			limits = append(limits, Limit{Path: fileName(f), Why: why})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		fixes = append(fixes, fx...)
	}
	if len(fixes) == 0 && len(limits) > 0 {
		return nil, limits, fmt.Errorf("the gold patch changes nothing the bot can write: %s", limits[0])
	}
	return fixes, limits, nil
}

// fileName is the path a file's change is about: the old one for a delete.
func fileName(f *gitdiff.File) string {
	if f.IsDelete {
		return f.OldName
	}
	return f.NewName
}

func fileFixes(f *gitdiff.File, base Base) ([]Fix, error) {
	name := fileName(f)
	if f.IsBinary {
		return nil, fmt.Errorf("%s: a binary change cannot be written as a text edit", name)
	}
	if f.IsDelete {
		return []Fix{{Path: f.OldName, Action: work.ActionDelete}}, nil
	}
	var old []byte
	if !f.IsNew {
		b, err := base(f.OldName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.OldName, err)
		}
		old = b
	}
	if f.IsNew || f.IsRename || f.IsCopy {
		var buf bytes.Buffer
		if err := gitdiff.Apply(&buf, bytes.NewReader(old), f); err != nil {
			return nil, fmt.Errorf("%s: the gold patch does not apply: %w", name, err)
		}
		add := Fix{Path: f.NewName, Action: work.ActionAdd, Content: buf.String()}
		if f.IsRename {
			return []Fix{{Path: f.OldName, Action: work.ActionDelete}, add}, nil
		}
		return []Fix{add}, nil
	}
	if len(f.TextFragments) == 0 {
		if f.OldMode != f.NewMode {
			return nil, errModeOnly
		}
		return nil, nil // nothing a text edit can say
	}
	blocks, err := blocksFor(splitLines(string(old)), f.TextFragments)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	blocks = slices.DeleteFunc(blocks, func(b Block) bool { return withNewline(b.Search) == withNewline(b.Replace) })
	if len(blocks) == 0 {
		return nil, errFinalNewline
	}
	return []Fix{{Path: name, Action: work.ActionModify, Blocks: blocks}}, nil
}

// IsNotExist reports a Base miss.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// splitLines splits s after every newline, keeping them (a last line
// without one stays as it is).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}
