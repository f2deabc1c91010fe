package coder

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/summaries"
)

// minCopiedChars is how much text a run of copied lines must hold before
// it counts as text taken from outside the region (short runs such as
// "if err != nil {" / "return err" / "}" recur everywhere).
const minCopiedChars = 40

// checkRewrite returns why the apply model's rewrite (after: the whole
// file with the region replaced) may not be kept, or "". It must change
// something; a line diff of the whole file must show changes only inside
// the region; and it must not re-create text the file has outside the
// region (a definition of the same name, or a run of three or more of its
// lines): a rewrite that does so changes the outside by duplicating it.
func checkRewrite(p string, before, after []byte, reg applyRegion) string {
	if string(before) == string(after) {
		return "the rewrite changes nothing"
	}
	old := cutLines(before)
	rs, re := 0, 0
	for i, l := range old {
		if i < reg.Start-1 {
			rs += len(l)
		}
		if i < reg.End {
			re += len(l)
		}
	}
	for _, e := range udiff.Lines(string(before), string(after)) {
		if e.Start < rs || e.End > re {
			return fmt.Sprintf("the whole-file diff changes line %d, outside the region (lines %d–%d)",
				strings.Count(string(before[:e.Start]), "\n")+1, reg.Start, reg.End)
		}
	}
	if why := redefined(p, before, after, reg); why != "" {
		return why
	}
	neu := cutLines(after)
	n := len(neu) - (len(old) - (reg.End - reg.Start + 1))
	if n < 0 {
		return ""
	}
	outside := runsOf(append(append(fileLines{}, old[:reg.Start-1]...), old[reg.End:]...))
	inside := runsOf(old[reg.Start-1 : reg.End])
	for run, first := range runsOf(neu[reg.Start-1 : reg.Start-1+n]) {
		if _, ok := outside[run]; ok {
			if _, own := inside[run]; !own {
				return fmt.Sprintf("the rewrite copies lines the file has outside the region (%q …)", first)
			}
		}
	}
	return ""
}

// runsOf returns every run of three consecutive non-blank lines (trimmed,
// blank lines skipped) holding at least minCopiedChars, with its first line.
func runsOf(lines fileLines) map[string]string {
	var nb []string
	for _, l := range lines.text() {
		if t := strings.TrimSpace(l); t != "" {
			nb = append(nb, t)
		}
	}
	out := map[string]string{}
	for i := 0; i+3 <= len(nb); i++ {
		run := strings.Join(nb[i:i+3], "\n")
		if len(run) >= minCopiedChars+2 {
			out[run] = nb[i]
		}
	}
	return out
}

// redefined reports a definition the rewrite adds whose name the file
// already defines outside the region.
func redefined(p string, before, after []byte, reg applyRegion) string {
	ob, err1 := summaries.OutlineOf(p, before)
	oa, err2 := summaries.OutlineOf(p, after)
	if err1 != nil || err2 != nil {
		return ""
	}
	count := func(syms []summaries.Symbol, f func(key string, s summaries.Symbol)) {
		var walk func(parent string, ss []summaries.Symbol)
		walk = func(parent string, ss []summaries.Symbol) {
			for _, s := range ss {
				key := s.Kind + " " + parent + s.Name
				f(key, s)
				walk(parent+s.Name+".", s.Children)
			}
		}
		walk("", syms)
	}
	was, outsideAt := map[string]int{}, map[string]int{}
	count(ob.Symbols, func(key string, s summaries.Symbol) {
		was[key]++
		if s.StartLine < reg.Start || s.StartLine > reg.End {
			outsideAt[key] = s.StartLine
		}
	})
	now := map[string]int{}
	count(oa.Symbols, func(key string, _ summaries.Symbol) { now[key]++ })
	keys := make([]string, 0, len(now))
	for key := range now {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if now[key] > was[key] && outsideAt[key] > 0 {
			return fmt.Sprintf("the rewrite defines %s again, which the file defines outside the region (line %d)", key, outsideAt[key])
		}
	}
	return ""
}

// staleBlock returns why a rewrite of a SEARCH/REPLACE block's region
// does more than the block can vouch for, or "": it may not remove a line
// of the region that the block's SEARCH does not quote, and it may not
// bring in a line the block keeps unchanged (one of both its SEARCH and its
// REPLACE) that the region does not have. Either way the block was written
// against other text (a stale read or a misremembered line) and the
// rewrite would overwrite what the file says now. Lines compare with their
// whitespace collapsed.
func staleBlock(e edit.Edit, before, after []byte, reg applyRegion) string {
	if e.Op != edit.OpReplace {
		return ""
	}
	inSearch, inReplace := map[string]int{}, map[string]int{}
	for _, l := range e.Search {
		inSearch[squash(l)]++
	}
	for _, l := range e.Replace {
		inReplace[squash(l)]++
	}
	old := cutLines(before)
	neu := cutLines(after)
	n := len(neu) - (len(old) - (reg.End - reg.Start + 1))
	if n < 0 {
		return ""
	}
	have := map[string]int{}
	for _, l := range old[reg.Start-1 : reg.End].text() {
		have[squash(l)]++
	}
	now := map[string]int{}
	for _, l := range neu[reg.Start-1 : reg.Start-1+n].text() {
		now[squash(l)]++
	}
	var kept []string
	for t, k := range now {
		if t != "" && inSearch[t] > 0 && inReplace[t] > 0 && k-have[t] > max(0, inReplace[t]-inSearch[t]) {
			kept = append(kept, t)
		}
	}
	if len(kept) > 0 {
		sort.Strings(kept)
		return fmt.Sprintf("the block keeps the line %q, which the region does not have (as often): it was written against other text", kept[0])
	}
	var removed []string
	for t, k := range have {
		if t != "" && k-now[t] > inSearch[t] {
			removed = append(removed, t)
		}
	}
	if len(removed) > 0 {
		sort.Strings(removed)
		return fmt.Sprintf("the rewrite removes the line %q, which the block does not quote (as often)", removed[0])
	}
	return ""
}

// squash trims a line and collapses its inner whitespace.
func squash(l string) string { return strings.Join(strings.Fields(l), " ") }

// sketchFits returns why a lazy sketch was not written for the region, or
// "": each of its anchors (the unchanged lines next to its markers) must
// have a line in the region at least applyMinSimilarity alike. A sketch
// whose anchors are misremembered a little still fits; one written for
// other code (or for a version of the file long gone) does not, and the
// apply model is not asked.
func sketchFits(e edit.Edit, region []string) string {
	if e.Op != edit.OpLazy {
		return ""
	}
	for _, a := range edit.SketchAnchors(e.Replace) {
		if w := edit.Nearest(region, []string{a}); w == nil || w.Similarity < applyMinSimilarity {
			return fmt.Sprintf("the sketch's unchanged line %q has no look-alike in the region: it was written for other code", a)
		}
	}
	return ""
}
