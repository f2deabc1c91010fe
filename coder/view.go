package coder

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/issuesmith/issuesmith/summaries"
)

// fileView is how one file is shown to the model: the whole content when it
// is small, else its outline plus the regions the plan touches, every omitted
// span named ("lines 40–180 not shown"), never cut silently.
type fileView struct {
	Path    string
	Exists  bool
	Whole   bool     // Content is the entire file
	Content string   // the file, or the rendered regions
	Outline string   // rendered outline when !Whole
	Regions []region // the regions shown when !Whole
	Lines   int
}

type region struct{ start, end int } // 1-based, inclusive

// identRe finds identifier-like words in plan steps: backticked spans, and
// words with an inner capital, underscore or dot (Server.Run, parse_args).
var (
	backtickRe = regexp.MustCompile("`([^`\n]{2,80})`")
	identRe    = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\b`)
)

// focus is what a plan item's text points at in a file: strong terms
// (backticked or identifier-shaped names) locate lines and symbols; plain
// words only pick symbols of exactly that name ("Add deepseek to platforms"
// selects a symbol named platforms, never every line saying "to").
type focus struct {
	terms []string
	words []string
}

// focusOf extracts the focus of some plan text.
func focusOf(texts ...string) focus {
	f := focus{terms: focusTerms(texts...)}
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range identRe.FindAllString(t, -1) {
			if len(w) >= 4 && !seen[w] {
				seen[w] = true
				f.words = append(f.words, w)
			}
		}
	}
	return f
}

// focusTerms extracts the names a plan item's text mentions.
func focusTerms(texts ...string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.Trim(s, "().,;: ")
		if len(s) < 3 || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, t := range texts {
		for _, m := range backtickRe.FindAllStringSubmatch(t, -1) {
			for _, w := range identRe.FindAllString(m[1], -1) {
				add(w)
			}
		}
		for _, w := range identRe.FindAllString(t, -1) {
			if strings.ContainsAny(w, "_.") || hasInnerUpper(w) {
				add(w)
			}
		}
	}
	return out
}

func hasInnerUpper(w string) bool {
	for i, r := range w {
		if i > 0 && r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}

// buildView decides how to show src. maxLines bounds both "small enough to
// show whole" and the total lines of regions shown for a large file.
func buildView(path string, src []byte, exists bool, f focus, maxLines int) fileView {
	v := fileView{Path: path, Exists: exists}
	if !exists {
		return v
	}
	text := string(src)
	lines := splitKeep(text)
	v.Lines = len(lines)
	if len(lines) <= maxLines && len(text) <= maxLines*120 {
		v.Whole, v.Content = true, text
		return v
	}
	var syms []summaries.Symbol
	if o, err := summaries.OutlineOf(path, src); err == nil {
		v.Outline = o.Render()
		syms = o.Symbols
	}
	regs := symbolRegions(syms, append(f.terms, f.words...))
	if len(regs) == 0 {
		regs = lineRegions(lines, f.terms, 15)
	}
	if len(regs) == 0 {
		regs = []region{{1, min(len(lines), maxLines/2)}}
	}
	v.Regions = capRegions(mergeRegions(regs, len(lines)), maxLines)
	v.Content = renderRegions(lines, v.Regions)
	return v
}

// symbolRegions returns the line ranges (with 3 lines of context) of symbols
// whose name, or Parent.Name, is among the terms, ignoring case.
func symbolRegions(syms []summaries.Symbol, terms []string) []region {
	want := map[string]bool{} // lower-cased: "the registry" finds Registry
	for _, t := range terms {
		want[strings.ToLower(t)] = true
		if i := strings.LastIndexByte(t, '.'); i >= 0 {
			want[strings.ToLower(t[i+1:])] = true
		}
	}
	var out []region
	var walk func([]summaries.Symbol)
	walk = func(ss []summaries.Symbol) {
		for _, s := range ss {
			if want[strings.ToLower(s.Name)] {
				out = append(out, region{s.StartLine - 3, s.EndLine + 3})
			}
			walk(s.Children)
		}
	}
	walk(syms)
	return out
}

// lineRegions returns windows of ±ctx lines around lines mentioning a term.
func lineRegions(lines []string, terms []string, ctx int) []region {
	var out []region
	for i, l := range lines {
		for _, t := range terms {
			if strings.Contains(l, t) {
				out = append(out, region{i + 1 - ctx, i + 1 + ctx})
				break
			}
		}
	}
	return out
}

// mergeRegions clamps to [1,n], sorts and joins overlapping or adjacent ones.
func mergeRegions(rs []region, n int) []region {
	for i := range rs {
		rs[i].start, rs[i].end = max(rs[i].start, 1), min(rs[i].end, n)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
	var out []region
	for _, r := range rs {
		if r.start > r.end {
			continue
		}
		if k := len(out) - 1; k >= 0 && r.start <= out[k].end+1 {
			out[k].end = max(out[k].end, r.end)
			continue
		}
		out = append(out, r)
	}
	return out
}

// capRegions keeps at most budget lines in total, shortening the last region
// that does not fit (the omitted rest is named when rendering).
func capRegions(rs []region, budget int) []region {
	var out []region
	for _, r := range rs {
		if budget <= 0 {
			break
		}
		if n := r.end - r.start + 1; n > budget {
			r.end = r.start + budget - 1
		}
		budget -= r.end - r.start + 1
		out = append(out, r)
	}
	return out
}

// renderRegions prints the regions verbatim, each under a "lines a–b" header,
// with every gap named so the model knows the file goes on.
func renderRegions(lines []string, rs []region) string {
	var b strings.Builder
	next := 1
	for _, r := range rs {
		if r.start > next {
			fmt.Fprintf(&b, "… lines %d–%d not shown …\n", next, r.start-1)
		}
		fmt.Fprintf(&b, "[lines %d–%d]\n", r.start, r.end)
		for _, l := range lines[r.start-1 : r.end] {
			b.WriteString(l)
		}
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		next = r.end + 1
	}
	if next <= len(lines) {
		fmt.Fprintf(&b, "… lines %d–%d not shown …\n", next, len(lines))
	}
	return b.String()
}

// splitKeep splits text into lines keeping each line's "\n".
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
}
