package edit

// Nearest returns the span of lines most like probe, found the way a
// refused block's feedback finds its nearest text (Window.Similarity 0..1),
// or nil when no line resembles it. It never places anything: callers that
// act on it (the coder's apply-model fallback) bound what they change to
// the window and check the result themselves.
func Nearest(lines, probe []string) *Window {
	return nearestWindow(newNearIndex(lines), probe)
}

// SketchCode returns a lazy snippet's lines without its "... existing code
// ..." markers: the code the snippet shows.
func SketchCode(snippet []string) []string {
	var out []string
	for _, l := range snippet {
		if !isLazyMarker(l) {
			out = append(out, l)
		}
	}
	return out
}

// SketchAnchors returns the lines of a lazy snippet that stand next to a
// marker, blank lines skipped: the first code line after each marker and
// the last one before it. The format promises they are unchanged code of
// the file; the lazy merge places the snippet by them.
func SketchAnchors(snippet []string) []string {
	var out []string
	for _, s := range splitLazy(snippet) {
		if !s.openStart {
			out = append(out, firstNonBlank(s.lines))
		}
		if !s.openEnd {
			out = append(out, lastNonBlank(s.lines))
		}
	}
	return out
}

// Similarity compares two runs of lines as whitespace-collapsed text, 0..1
// (1 - edit distance / longer length), as the refusal feedback does.
func Similarity(a, b []string) float64 { return similarity(a, b) }
