package edit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Limits that keep explaining a refusal cheap on large files.
const (
	maxVotersPerLine = 64   // a SEARCH line seen more often than this does not vote
	maxDiffLines     = 12   // differing lines shown in a Window's Diff
	maxSimChars      = 4000 // text compared by Levenshtein, per side
	maxScanLines     = 8000 // file size up to which the per-line fallback scans
)

// nearestWindow finds the span of lines most like search, for the feedback
// of a refused block. It never places anything. It returns nil when no line
// of the file resembles the search.
func nearestWindow(lines, search []string) *Window {
	m := len(search)
	if m == 0 || len(lines) == 0 {
		return nil
	}
	ns := make([]string, m)
	want := map[string][]int{}
	for k, s := range search {
		ns[k] = collapse(fold(s))
		if ns[k] != "" && len(ns[k]) > 1 {
			want[ns[k]] = append(want[ns[k]], k)
		}
	}
	votes := map[int]int{}
	seen := map[string]int{}
	for i, l := range lines {
		n := collapse(fold(l))
		ks, ok := want[n]
		if !ok {
			continue
		}
		if seen[n]++; seen[n] > maxVotersPerLine {
			continue
		}
		for _, k := range ks {
			votes[i-k]++
		}
	}
	starts := topStarts(votes, 3)
	if len(starts) == 0 {
		starts = similarLineStarts(lines, search, ns)
	}
	var best *Window
	for _, s := range starts {
		s = max(0, min(s, len(lines)-1))
		e := min(len(lines), s+m)
		win := lines[s:e]
		sim := similarity(win, search)
		if best == nil || sim > best.Similarity {
			best = &Window{Start: s + 1, End: e, Similarity: sim, Diff: visibleDiff(win, search, s)}
		}
	}
	if best == nil || best.Similarity < 0.3 {
		return nil
	}
	return best
}

// topStarts returns up to n window starts with the most votes.
func topStarts(votes map[int]int, n int) []int {
	type sv struct{ s, v int }
	all := make([]sv, 0, len(votes))
	for s, v := range votes {
		all = append(all, sv{s, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].s < all[j].s
	})
	out := []int{}
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].s)
	}
	return out
}

// similarLineStarts is the fallback when no line matches loosely: the most
// similar file line to the first non-blank SEARCH line anchors a window.
func similarLineStarts(lines, search, ns []string) []int {
	if len(lines) > maxScanLines {
		return nil
	}
	for k, n := range ns {
		if n == "" {
			continue
		}
		best, bestSim := -1, 0.0
		for i, l := range lines {
			if sim := ratio(collapse(fold(l)), n); sim > bestSim {
				best, bestSim = i, sim
			}
		}
		if best >= 0 {
			return []int{best - k}
		}
		return nil
	}
	return nil
}

// similarity compares two line lists as whitespace-collapsed text (0..1).
func similarity(a, b []string) float64 {
	join := func(ls []string) string {
		parts := make([]string, len(ls))
		for i, l := range ls {
			parts[i] = collapse(l)
		}
		s := strings.Join(parts, "\n")
		if len(s) > maxSimChars {
			s = s[:maxSimChars]
		}
		return s
	}
	return ratio(join(a), join(b))
}

// ratio is 1 - edit distance / longer length.
func ratio(a, b string) float64 {
	if a == b {
		return 1
	}
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 1
	}
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
}

// visibleDiff lists the lines where the window and SEARCH differ, with tabs
// shown as → and spaces as ·, so whitespace mistakes can be seen.
func visibleDiff(win, search []string, start int) string {
	var b strings.Builder
	shown := 0
	for k := 0; k < len(search); k++ {
		f := ""
		if k < len(win) {
			f = win[k]
		}
		if k < len(win) && f == search[k] {
			continue
		}
		if shown == maxDiffLines {
			b.WriteString("  …\n")
			break
		}
		shown++
		fmt.Fprintf(&b, "  line %d file:   %s\n", start+k+1, visible(f))
		fmt.Fprintf(&b, "  %*s search: %s\n", len(fmt.Sprint(start+k+1))+4, "", visible(search[k]))
	}
	return b.String()
}

// visible shows tabs as → and spaces as ·.
func visible(s string) string {
	return strings.NewReplacer("\t", "→", " ", "·").Replace(s)
}
