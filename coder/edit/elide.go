package edit

import "strings"

// isElision reports whether l is a "..." line standing for unchanged code.
func isElision(l string) bool {
	t := strings.TrimSpace(l)
	return t == "..." || t == "…"
}

// splitElided cuts lines at "..." lines.
func splitElided(lines []string) [][]string {
	var out [][]string
	cur := []string{}
	for _, l := range lines {
		if isElision(l) {
			out = append(out, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, l)
	}
	return append(out, cur)
}

// placeElided applies a block whose SEARCH and REPLACE skip unchanged code
// with "..." lines (aider's dotdotdots): both sides must have the same number
// of pieces, every SEARCH piece must match uniquely, in order, and each is
// replaced by its REPLACE piece; the code between pieces stays.
func (fs *fileState) placeElided(search, repl []string) ([]placement, outcome, bool) {
	sp, rp := splitElided(search), splitElided(repl)
	if len(sp) < 2 || len(sp) != len(rp) {
		return nil, outcome{}, false
	}
	var pl []placement
	prevEnd := 0
	for i := range sp {
		if len(sp[i]) == 0 {
			if len(rp[i]) == 0 {
				continue
			}
			return nil, outcome{}, false
		}
		start, _, _, ok := fs.locate(sp[i], hints{})
		if !ok || start < prevEnd {
			return nil, outcome{}, false
		}
		win := fs.window(start, len(sp[i]))
		pl = append(pl, placement{start, start + len(sp[i]), buildReplacement(sp[i], rp[i], win, nil, fs.style(start, start+len(sp[i])))})
		prevEnd = start + len(sp[i])
	}
	if len(pl) == 0 {
		return nil, outcome{}, false
	}
	return pl, outcome{level: "elision"}, true
}
