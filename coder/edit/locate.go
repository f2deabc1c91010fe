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
