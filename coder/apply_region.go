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

// locateRegion finds the region a refused block meant, the way issue
// text asks: the engine's nearest text to the block's code when it is at
// least applyMinSimilarity alike, else the function (or method) of the
// file's outline that overlaps that nearest text most. A lazy sketch, whose
// markers stand for code the window does not count, prefers the enclosing
// function. No region (false) when nothing resembles the block, when the
// engine found several equal candidates, or when the region is too long.
func locateRegion(path string, data []byte, e edit.Edit, b edit.BlockResult) (applyRegion, bool, string) {
	if b.Reason == edit.ReasonAmbiguous {
		return applyRegion{}, false, "the block matches several places; the apply model is not asked to choose"
	}
	probe := e.Search
	if e.Op == edit.OpLazy {
		probe = sketchHead(e.Replace)
	}
	lines := cutLines(data).text()
	w := edit.Nearest(lines, probe)
	if w == nil {
		return applyRegion{}, false, "no text in the file resembles the block"
	}
	near := applyRegion{Start: w.Start, End: w.End, How: fmt.Sprintf("the nearest text, %.0f%% similar", w.Similarity*100)}
	fn, hasFn := enclosingFunction(path, data, w.Start, w.End)
	var reg applyRegion
	switch {
	case e.Op == edit.OpLazy && hasFn:
		reg = fn
	case w.Similarity >= applyMinSimilarity:
		reg = near
	case hasFn:
		reg = fn
	default:
		return applyRegion{}, false, fmt.Sprintf("the nearest text (lines %d–%d) is only %.0f%% similar and lies in no function", w.Start, w.End, w.Similarity*100)
	}
	if n := reg.End - reg.Start + 1; n > applyMaxRegionLines {
		return applyRegion{}, false, fmt.Sprintf("the region (%s, lines %d–%d) has %d lines, more than %d", reg.How, reg.Start, reg.End, n, applyMaxRegionLines)
	}
	return reg, true, ""
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

// sketchHead is the line a lazy sketch is placed by: its first distinctive
// code line (usually the signature of the function it rewrites). The
// whole sketch makes a poor probe: its new lines and the code its markers
// leave out pull the nearest window off its function.
func sketchHead(snippet []string) []string {
	code := edit.SketchCode(snippet)
	for _, l := range code {
		if len(strings.TrimSpace(l)) >= 8 {
			return []string{l}
		}
	}
	return code
}
