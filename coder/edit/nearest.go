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
	maxLineChars     = 200  // characters of a line the per-line fallback compares
)

// clip cuts s to at most n bytes.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// nearIndex holds a file's lines prepared once for explaining several
// refused blocks: loosely normalized text and the words of each line.
type nearIndex struct {
	lines []string
	norm  []string
	toks  [][]string
}

func newNearIndex(lines []string) *nearIndex {
	ix := &nearIndex{lines: lines, norm: make([]string, len(lines)), toks: make([][]string, len(lines))}
	for i, l := range lines {
		ix.norm[i] = collapse(fold(l))
		ix.toks[i] = tokens(l)
	}
	return ix
}

// nearestWindow finds the span of lines most like search, for the feedback
// of a refused block. It never places anything. It returns nil when no line
// of the file resembles the search.
func nearestWindow(ix *nearIndex, search []string) *Window {
	lines := ix.lines
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
	votes := map[int]float64{}
	seen := map[string]int{}
	for i, n := range ix.norm {
		ks, ok := want[n]
		if !ok {
			continue
		}
		if seen[n]++; seen[n] > maxVotersPerLine {
			continue
		}
		for _, k := range ks {
			votes[i-k] += 2
		}
	}
	tokenVotes(ix, search, votes)
	starts := topStarts(votes, 3)
	if len(starts) == 0 {
		starts = similarLineStarts(ix, ns)
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

// tokenVotes adds votes from identifiers and numbers (3+ characters) shared
// by SEARCH lines and file lines, weighted by rarity in the file, so a
// window is found even when no line matches whole (a renamed variable on
// every line).
func tokenVotes(ix *nearIndex, search []string, votes map[int]float64) {
	want := map[string][]int{}
	for k, l := range search {
		for _, t := range tokens(l) {
			want[t] = append(want[t], k)
		}
	}
	if len(want) == 0 {
		return
	}
	freq := map[string]int{}
	for _, ts := range ix.toks {
		for _, t := range ts {
			if _, ok := want[t]; ok {
				freq[t]++
			}
		}
	}
	for i, ts := range ix.toks {
		for _, t := range ts {
			ks, ok := want[t]
			if !ok || freq[t] > maxVotersPerLine {
				continue
			}
			w := 1 / float64(freq[t])
			for _, k := range ks {
				votes[i-k] += w
			}
		}
	}
}

// tokens splits s into words of letters, digits and underscores, at least 3 long.
func tokens(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		word := i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 0x80)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if i-start >= 3 {
				out = append(out, s[start:i])
			}
			start = -1
		}
	}
	return out
}

// topStarts returns up to n window starts with the most votes.
func topStarts(votes map[int]float64, n int) []int {
	type sv struct {
		s int
		v float64
	}
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
func similarLineStarts(ix *nearIndex, ns []string) []int {
	if len(ix.lines) > maxScanLines {
		return nil
	}
	for k, n := range ns {
		if n == "" {
			continue
		}
		best, bestSim := -1, 0.0
		n = clip(n, maxLineChars)
		for i, l := range ix.norm {
			if sim := ratio(clip(l, maxLineChars), n); sim > bestSim {
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
		return strings.Join(parts, "\n")
	}
	return ratio(join(a), join(b))
}

// ratio is 1 - edit distance / longer length. Inputs are cut to
// maxSimChars so a minified line cannot make it quadratic in megabytes.
func ratio(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) > maxSimChars || len(b) > maxSimChars {
		// Compared on the first maxSimChars only; never claim equality.
		return min(ratio(clip(a, maxSimChars), clip(b, maxSimChars)), 0.99)
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
		fmt.Fprintf(&b, "  %*s search: %s\n", len(fmt.Sprint(start+k+1))+5, "", visible(search[k]))
	}
	return b.String()
}

// visible shows tabs as → and spaces as ·, cut to maxLineChars.
func visible(s string) string {
	more := ""
	if len(s) > maxLineChars {
		s, more = s[:maxLineChars], "…"
	}
	return strings.NewReplacer("\t", "→", " ", "·").Replace(s) + more
}
