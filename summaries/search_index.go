package summaries

import (
	"path"
	"strings"
)

// searchIndex is the per-build part of search that does not depend on the
// query: document statistics and lookup tables for the explicit pointers.
type searchIndex struct {
	docs   []*FileInfo
	avgLen float64
	// fieldTerms are path and symbol-name terms per document, weighted
	// into the BM25F term frequency.
	pathTerms []map[string]int32
	symTerms  []map[string]int32
	sumTerms  []map[string]int32 // terms of model-written summaries
	fieldLen  []int
	// defs maps a lower-cased symbol name to the documents defining it:
	// an issue's `session` points at class Session as well.
	defs map[string][]int
	// byBase maps a file's base name to its documents, for path mentions.
	byBase map[string][]int
	byPath map[string]int
	// byDirBase maps a folder's base name to the folders with that name;
	// dirFiles lists the documents directly in each folder.
	byDirBase map[string][]string
	dirFiles  map[string][]int
}

// Field weights of BM25F: a term in a file's path or in the name of a
// definition says more about the file than one more use in its body.
const (
	wPath    = 3
	wSym     = 2
	wSummary = 2 // a model summary says in a few words what the file is for
)

func buildSearchIndex(files map[string]*FileInfo, sorted []string) *searchIndex {
	si := &searchIndex{defs: map[string][]int{}, byBase: map[string][]int{}, byPath: map[string]int{},
		byDirBase: map[string][]string{}, dirFiles: map[string][]int{}}
	total := 0
	for _, p := range sorted {
		f := files[p]
		i := len(si.docs)
		si.docs = append(si.docs, f)
		si.byPath[p] = i
		si.byBase[path.Base(p)] = append(si.byBase[path.Base(p)], i)
		if d := path.Dir(p); d != "." {
			if len(si.dirFiles[d]) == 0 {
				si.byDirBase[path.Base(d)] = append(si.byDirBase[path.Base(d)], d)
			}
			si.dirFiles[d] = append(si.dirFiles[d], i)
		}
		pt := map[string]int32{}
		eachTerm(p, func(t string) { pt[t]++ })
		st := map[string]int32{}
		seen := map[string]bool{}
		for _, name := range f.symbols {
			eachTerm(name, func(t string) { st[t]++ })
			ln := strings.ToLower(name)
			if !seen[ln] {
				seen[ln] = true
				si.defs[ln] = append(si.defs[ln], i)
			}
		}
		var sm map[string]int32
		if f.FromModel { // outline summaries repeat the body and symbols
			sm = map[string]int32{}
			eachTerm(f.Summary, func(t string) { sm[t]++ })
		}
		n := f.length
		for _, c := range sm {
			n += wSummary * int(c)
		}
		for _, c := range pt {
			n += wPath * int(c)
		}
		for _, c := range st {
			n += wSym * int(c)
		}
		si.sumTerms = append(si.sumTerms, sm)
		si.pathTerms = append(si.pathTerms, pt)
		si.symTerms = append(si.symTerms, st)
		si.fieldLen = append(si.fieldLen, n)
		total += n
	}
	if len(si.docs) > 0 {
		si.avgLen = float64(total) / float64(len(si.docs))
	}
	if si.avgLen == 0 {
		si.avgLen = 1
	}
	return si
}

// matchPath returns the documents whose path ends with the mentioned path
// at a folder boundary, keeping those that share the most trailing folders.
// A bare file name matching many files is too vague and gives nothing.
func (si *searchIndex) matchPath(mention string) []int {
	ds, _ := si.matchPathN(mention)
	return ds
}

// matchPathN is matchPath that also returns how many trailing path
// elements matched.
func (si *searchIndex) matchPathN(mention string) ([]int, int) {
	mention = strings.TrimPrefix(path.Clean("/"+mention), "/")
	parts := strings.Split(mention, "/")
	cands := si.byBase[parts[len(parts)-1]]
	best, bestN := []int(nil), 0
	for _, d := range cands {
		dp := strings.Split(si.docs[d].Path, "/")
		n := 0
		for n < len(parts) && n < len(dp) && parts[len(parts)-1-n] == dp[len(dp)-1-n] {
			n++
		}
		switch {
		case n > bestN:
			best, bestN = []int{d}, n
		case n == bestN:
			best = append(best, d)
		}
	}
	if bestN == 0 || (bestN == 1 && len(best) > 2) {
		return nil, 0
	}
	return best, bestN
}

// matchModule resolves a dotted name (pkg.mod.Name) to the files of its
// longest prefix that names a module or package of the tree, and returns
// the rest of the name (attribute path inside the module).
func (si *searchIndex) matchModule(dotted string) (docs []int, rest []string) {
	parts := strings.Split(dotted, ".")
	for n := len(parts); n >= 2; n-- {
		base := strings.Join(parts[:n], "/")
		for _, cand := range []string{base + ".py", base + "/__init__.py", base + ".go", base + ".ts", base + ".js", base + ".java"} {
			// both the module and its package must match: "os.path"
			// must not land on some other path.py
			need := n
			if strings.HasSuffix(cand, "/__init__.py") {
				need++
			}
			if ds, k := si.matchPathN(cand); len(ds) > 0 && len(ds) <= 2 && k >= need {
				return ds, parts[n:]
			}
		}
	}
	return nil, nil
}

// matchDir returns the folder whose path ends with the mentioned slash
// path. At least two trailing elements must match (a folder and its
// parent), or the whole folder path when the mention is a Go-style import
// path (github.com/o/r/pkg), and only one folder may match best.
func (si *searchIndex) matchDir(mention string) (string, bool) {
	parts := strings.Split(mention, "/")
	if len(parts) < 2 {
		return "", false
	}
	best, bestN, ties := "", 0, 0
	for _, d := range si.byDirBase[parts[len(parts)-1]] {
		dp := strings.Split(d, "/")
		n := 0
		for n < len(parts) && n < len(dp) && parts[len(parts)-1-n] == dp[len(dp)-1-n] {
			n++
		}
		switch {
		case n > bestN:
			best, bestN, ties = d, n, 1
		case n == bestN:
			ties++
		}
	}
	if ties != 1 {
		return "", false
	}
	whole := bestN == strings.Count(best, "/")+1 && strings.Contains(parts[0], ".")
	if bestN < 2 && !whole {
		return "", false
	}
	return best, true
}
