package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// span is one hunk placed in the base file: base[at:at+len(old)] becomes
// new; [lo, hi) is the SEARCH range once widened to be unique.
type span struct {
	at, lo, hi int
	old, new   []string
}

// blocksFor turns a file's hunks into SEARCH/REPLACE blocks over base (its
// lines). Each SEARCH is the hunk's old side — git's context and the
// removed lines — widened a line at a time, above then below, until it
// occurs once in the file; blocks whose ranges meet are merged.
func blocksFor(base []string, frags []*gitdiff.TextFragment) ([]Block, error) {
	var spans []span
	for _, f := range frags {
		var old, nw []string
		for _, l := range f.Lines {
			if l.Op != gitdiff.OpAdd {
				old = append(old, l.Line)
			}
			if l.Op != gitdiff.OpDelete {
				nw = append(nw, l.Line)
			}
		}
		at := int(f.OldPosition) - 1
		if len(old) == 0 {
			at = int(f.OldPosition) // an insertion after line OldPosition
		}
		if at < 0 || at+len(old) > len(base) || !slices.Equal(base[at:at+len(old)], old) {
			return nil, fmt.Errorf("hunk @@ -%d,%d does not match the base file", f.OldPosition, f.OldLines)
		}
		lo, hi := widen(base, at, at+len(old))
		spans = append(spans, span{at: at, lo: lo, hi: hi, old: old, new: nw})
	}
	var out []Block
	for i := 0; i < len(spans); {
		j, hi := i+1, spans[i].hi
		for j < len(spans) && spans[j].lo <= hi {
			hi = max(hi, spans[j].hi)
			j++
		}
		out = append(out, merged(base, spans[i:j], spans[i].lo, hi))
		i = j
	}
	return out, nil
}

// widen grows [lo, hi) over base until its text occurs once in base (or
// covers the file). An empty range takes a line first.
func widen(base []string, lo, hi int) (int, int) {
	for lo > 0 || hi < len(base) {
		if hi > lo && count(base, base[lo:hi]) == 1 {
			break
		}
		if lo > 0 {
			lo--
		}
		if hi < len(base) && (hi == lo || count(base, base[lo:hi]) > 1) {
			hi++
		}
	}
	return lo, hi
}

// count is how many times run occurs in base as consecutive lines.
func count(base, run []string) int {
	n := 0
	for i := 0; i+len(run) <= len(base); i++ {
		if slices.Equal(base[i:i+len(run)], run) {
			n++
		}
	}
	return n
}

// merged is one block for spans that share lines of base[lo:hi].
func merged(base []string, spans []span, lo, hi int) Block {
	var repl strings.Builder
	cur := lo
	for _, s := range spans {
		repl.WriteString(strings.Join(base[cur:s.at], ""))
		repl.WriteString(strings.Join(s.new, ""))
		cur = s.at + len(s.old)
	}
	repl.WriteString(strings.Join(base[cur:hi], ""))
	return Block{Search: strings.Join(base[lo:hi], ""), Replace: repl.String()}
}
