package coder

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/summaries"
)

// Limits of the region the apply model may rewrite.
const (
	// applyMinSimilarity is how close the engine's nearest text must be to
	// the refused block's code to be the region by itself.
	applyMinSimilarity = 0.8
	// applyMaxRegionLines bounds the region (and so the apply prompt).
	applyMaxRegionLines = 200
)

// applyRegion is the part of a file the apply model may rewrite: lines
// Start..End, 1-based and inclusive, and how it was found.
type applyRegion struct {
	Start, End int
	How        string
}

// fileLines is a file cut into lines, each with its terminator ("\n" or
// "\r\n"; the last may have none).
type fileLines []string

func cutLines(data []byte) fileLines {
	parts := strings.SplitAfter(string(data), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// text returns the lines without their terminators.
func (f fileLines) text() []string {
	out := make([]string, len(f))
	for i, l := range f {
		out[i] = strings.TrimRight(l, "\r\n")
	}
	return out
}

// locateRegion finds the region a refused block meant: for a SEARCH block
// the engine's nearest text to its SEARCH when it is at least
// applyMinSimilarity alike, else the function (or method) of the file's
// outline that overlaps that nearest text most; for a lazy sketch see
// sketchRegion. No region (false, and why) when nothing resembles the
// block, when the engine found several equal candidates, or when the
// region is longer than applyMaxRegionLines.
func locateRegion(path string, data []byte, e edit.Edit, b edit.BlockResult) (applyRegion, bool, string) {
	if b.Reason == edit.ReasonAmbiguous {
		return applyRegion{}, false, "the block matches several places; the apply model is not asked to choose"
	}
	lines := cutLines(data).text()
	var reg applyRegion
	if e.Op == edit.OpLazy {
		r, why := sketchRegion(path, data, lines, e.Replace)
		if why != "" {
			return applyRegion{}, false, why
		}
		reg = r
	} else {
		w := edit.Nearest(lines, e.Search)
		if w == nil {
			return applyRegion{}, false, "no text in the file resembles the block"
		}
		fn, hasFn := enclosingFunction(path, data, w.Start, w.End)
		switch {
		case w.Similarity >= applyMinSimilarity:
			reg = applyRegion{Start: w.Start, End: w.End, How: fmt.Sprintf("the nearest text, %.0f%% similar", w.Similarity*100)}
		case hasFn:
			reg = fn
		default:
			return applyRegion{}, false, fmt.Sprintf("the nearest text (lines %d–%d) is only %.0f%% similar and lies in no function", w.Start, w.End, w.Similarity*100)
		}
	}
	if n := reg.End - reg.Start + 1; n > applyMaxRegionLines {
		return applyRegion{}, false, fmt.Sprintf("the region (%s, lines %d–%d) has %d lines, more than %d", reg.How, reg.Start, reg.End, n, applyMaxRegionLines)
	}
	return reg, true, ""
}

// sketchRegion finds the lines a lazy sketch rewrites the way the lazy
// merge places it, loosely: its anchors (the unchanged lines next to its
// markers) in order, each at the first line from the previous one that is
// at least applyMinSimilarity alike (the first anchor at the nearest text
// to it; a sketch without a leading marker starts at the file's start, one
// without a trailing marker ends at its end). When the first anchor opens
// a function, the region runs at least to that function's end.
func sketchRegion(path string, data []byte, lines, snippet []string) (applyRegion, string) {
	anchors := edit.SketchAnchors(snippet)
	code := edit.SketchCode(snippet)
	if len(code) == 0 || len(lines) == 0 {
		return applyRegion{}, "the sketch holds no code"
	}
	openStart := !isMarkerLine(snippet, true)
	openEnd := !isMarkerLine(snippet, false)
	start, pos := 1, 0 // pos: 0-based line the next anchor is searched from
	rest := anchors
	if !openStart {
		w := edit.Nearest(lines, anchors[0:1])
		if w == nil || w.Similarity < applyMinSimilarity {
			return applyRegion{}, fmt.Sprintf("no line of the file resembles the sketch's first unchanged line %q", anchors[0])
		}
		start, pos, rest = w.Start, w.Start, anchors[1:]
	}
	for _, a := range rest {
		j := pos
		for j < len(lines) && edit.Similarity([]string{lines[j]}, []string{a}) < applyMinSimilarity {
			j++
		}
		if j == len(lines) {
			return applyRegion{}, fmt.Sprintf("the sketch's unchanged line %q is not in the file after line %d", a, pos)
		}
		pos = j + 1
	}
	end := max(pos, start)
	if openEnd {
		end = len(lines)
	}
	how := "the sketch's anchors"
	if fn, ok := enclosingFunction(path, data, start, start); ok && fn.Start == start && fn.End > end {
		end, how = fn.End, "the sketch's anchors and "+strings.TrimPrefix(fn.How, "the enclosing ")
	}
	return applyRegion{Start: start, End: end, How: how}, ""
}

// isMarkerLine reports whether the snippet's first (or last) non-blank
// line is a lazy marker.
func isMarkerLine(snippet []string, first bool) bool {
	for i := range snippet {
		k := i
		if !first {
			k = len(snippet) - 1 - i
		}
		if strings.TrimSpace(snippet[k]) == "" {
			continue
		}
		return len(edit.SketchCode(snippet[k:k+1])) == 0
	}
	return false
}

// enclosingFunction returns the function or method of the file's outline
// that overlaps lines start..end most (the smaller one on a tie): the
// window of a lazy sketch counts the sketch's lines, not the code its
// markers stand for, so it may run past the function it is about.
func enclosingFunction(path string, data []byte, start, end int) (applyRegion, bool) {
	o, err := summaries.OutlineOf(path, data)
	if err != nil {
		return applyRegion{}, false
	}
	var best *summaries.Symbol
	bestOver := 0
	var walk func([]summaries.Symbol)
	walk = func(ss []summaries.Symbol) {
		for i := range ss {
			s := &ss[i]
			over := min(s.EndLine, end) - max(s.StartLine, start) + 1
			if (s.Kind == "function" || s.Kind == "method") && over > 0 &&
				(over > bestOver || over == bestOver && s.EndLine-s.StartLine < best.EndLine-best.StartLine) {
				best, bestOver = s, over
			}
			walk(s.Children)
		}
	}
	walk(o.Symbols)
	if best == nil {
		return applyRegion{}, false
	}
	return applyRegion{Start: best.StartLine, End: best.EndLine, How: "the enclosing " + best.Kind + " " + best.Name}, true
}
