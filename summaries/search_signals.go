package summaries

// The explicit signals of an issue (named files and folders, stack-trace
// frames, identifiers written as code, verbatim phrases) and the boosts
// they give; search.go combines them with BM25 and the import graph.

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
)

// explicit adds the boosts of the pointers the issue gives: named files,
// stack-trace frames, dotted module names and identifiers written as code
// that the file defines.
func (si *searchIndex) explicit(q *query, res []scored) {
	add := func(d int, w float64, why string) {
		res[d].boost += w
		res[d].reasons = append(res[d].reasons, fmt.Sprintf("%s (+%.2f)", why, w))
	}
	si.namedFiles(q, add)
	si.namedFolders(q, add)
	si.namedPackages(q.packages, add)
	si.definitions(q, add)
}

// namedFiles adds the boosts of file paths and stack-trace frames.
func (si *searchIndex) namedFiles(q *query, add func(d int, w float64, why string)) {
	for _, m := range q.paths {
		ds := si.matchPath(m)
		for _, d := range ds {
			add(d, boostPath/float64(len(ds)), "named in the issue: "+m)
		}
	}
	last := -1
	seen := map[int]bool{}
	for _, fr := range q.frames {
		for _, d := range si.matchPath(fr) {
			last = d
			if !seen[d] {
				seen[d] = true
				add(d, boostFrame, "stack-trace frame")
			}
		}
	}
	if last >= 0 {
		add(last, boostLastFrame, "innermost stack-trace frame in the tree")
	}
}

// namedFolders adds the boosts of folder paths and dotted module names.
func (si *searchIndex) namedFolders(q *query, add func(d int, w float64, why string)) {
	for _, m := range q.dirs {
		dir, ok := si.matchDir(m)
		if !ok {
			continue
		}
		ds := si.dirFiles[dir]
		for _, d := range ds {
			add(d, boostDir/math.Sqrt(float64(len(ds))), "in a folder named in the issue: "+m)
		}
	}
	for _, m := range q.modules {
		ds, _ := si.matchModule(m)
		if len(ds) == 1 && path.Base(si.docs[ds[0]].Path) == "__init__.py" {
			// a package: its __init__ mostly re-exports, so the name
			// points at the package's files as a folder mention does
			pkg := si.dirFiles[path.Dir(si.docs[ds[0]].Path)]
			for _, d := range pkg {
				add(d, boostDir/math.Sqrt(float64(len(pkg))), "in a package named in the issue: "+m)
			}
			continue
		}
		for _, d := range ds {
			add(d, boostModule/float64(len(ds)), "module named in the issue: "+m)
		}
	}
}

// definitions adds the boosts of files defining identifiers written as
// code, weighted by how rare the identifier is and capped per file.
func (si *searchIndex) definitions(q *query, add func(d int, w float64, why string)) {
	defBoost := map[int]float64{}
	weight := map[string]float64{}
	for id := range q.blockIdents {
		weight[id] = 0.5
	}
	for id := range q.idents {
		weight[id] = 1
	}
	idents := make([]string, 0, len(weight))
	for id := range weight {
		idents = append(idents, id)
	}
	sort.Strings(idents)
	for _, id := range idents {
		lid := strings.ToLower(id)
		ds := si.defs[lid]
		if len(ds) == 0 || len(ds) > 8 {
			continue // unknown here, or defined everywhere (a common method name)
		}
		// A rare identifier is a sharper pointer than a common word
		// that happens to name a definition (name, path, config).
		w0 := weight[id] * boostDef * math.Sqrt(si.specificity(lid)) / math.Sqrt(float64(len(ds)))
		for _, d := range ds {
			w := w0
			if defBoost[d]+w > maxDefBoost {
				w = maxDefBoost - defBoost[d]
			}
			if w <= 0 {
				continue
			}
			defBoost[d] += w
			add(d, w, "defines "+id)
		}
	}
}

// phrases boosts files that contain a literal of the issue verbatim (a
// command-line flag, an error message, a code fragment), as grep would find
// them. Only files holding every term of the phrase are read.
func (si *searchIndex) phrases(src Source, phrases []string, res []scored) {
	if src == nil {
		return
	}
	content := map[int][]byte{}
	got := map[int]float64{}
	// Longest first: a file matching "pytest --fixtures" is not counted
	// again for "--fixtures".
	phrases = append([]string(nil), phrases...)
	sort.SliceStable(phrases, func(i, j int) bool { return len(phrases[i]) > len(phrases[j]) })
	matched := map[int][]string{}
	for _, ph := range phrases {
		terms := Terms(ph)
		if len(terms) == 0 {
			continue
		}
		var hits []int
		for d, f := range si.docs {
			if f.Outline == nil || !hasAll(f.terms, terms) {
				continue
			}
			data, ok := content[d]
			if !ok {
				data, _ = src.ReadBytes(f.Path)
				content[d] = data
			}
			if strings.Contains(string(data), ph) {
				hits = append(hits, d)
			}
		}
		// Tests, docs and changelogs repeat flags and messages: how
		// specific a phrase is is judged among the project's code.
		code := 0
		for _, d := range hits {
			if p := si.docs[d].Path; IsCode(p) && !IsTest(p) && !auxiliary(p) && !vendored(p) {
				code++
			}
		}
		if code == 0 || code > 10 {
			continue // not in the code, or too common to point anywhere
		}
		w0 := boostPhrase / math.Sqrt(float64(code))
		for _, d := range hits {
			if within(ph, matched[d]) {
				continue
			}
			w := min(w0, maxPhraseBoost-got[d])
			if w <= 0 {
				continue // a file quoting the whole issue (a changelog) gains no more
			}
			got[d] += w
			matched[d] = append(matched[d], ph)
			res[d].boost += w
			res[d].reasons = append(res[d].reasons, fmt.Sprintf("contains %q (+%.2f)", ph, w))
		}
	}
}

// within reports whether ph is part of one of the longer phrases.
func within(ph string, longer []string) bool {
	for _, l := range longer {
		if strings.Contains(l, ph) {
			return true
		}
	}
	return false
}

func hasAll(terms map[string]int32, want []string) bool {
	for _, t := range want {
		if terms[t] == 0 {
			return false
		}
	}
	return true
}

// specificity is the inverse document frequency of a term over file
// bodies, scaled to [0, 1] (1: in one file only).
func (si *searchIndex) specificity(term string) float64 {
	df := 0
	for _, f := range si.docs {
		if f.terms[term] > 0 {
			df++
		}
	}
	n := float64(len(si.docs))
	if df == 0 || n < 2 {
		return 1
	}
	return math.Log(n/float64(df)) / math.Log(n)
}
