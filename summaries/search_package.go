package summaries

// Package-level signals: in Go a folder is a package and a change rarely
// lands in a file whose siblings say nothing about the issue, so files
// whose package matches as a whole rise; and an issue that says "the X
// package" points at the folder X.

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"
)

const (
	// liftPackage is the share of the best sibling's score a file gains,
	// bounded by its own score: two files of one package matching the
	// issue back each other up.
	liftPackage = 0.2
)

// packageRe finds "the X package", "package X" and "X package" with X
// written plainly or as inline code.
var packageRe = regexp.MustCompile("(?i)\\bpackage\\s+`?([a-z][a-z0-9_]*)`?|`?\\b([a-z][a-z0-9_]*)`?\\s+package\\b")

// packageNames returns the folder names the text calls packages.
func packageNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range packageRe.FindAllStringSubmatch(text, -1) {
		name := strings.ToLower(m[1] + m[2])
		if len(name) < 3 || stopWords[name] || seen[name] || packageNoise[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

// packageNoise are words that precede or follow "package" without naming one.
var packageNoise = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("new whole external third party same another different entire separate " +
		"dedicated single each every python npm own go") {
		m[w] = true
	}
	return m
}()

// namedPackages boosts the code files of a folder the issue calls a
// package by its name, when at most two folders have that name.
func (si *searchIndex) namedPackages(names []string, add func(d int, w float64, why string)) {
	for _, name := range names {
		dirs := si.byDirBase[name]
		if len(dirs) == 0 || len(dirs) > 2 {
			continue
		}
		for _, dir := range dirs {
			var ds []int
			for _, d := range si.dirFiles[dir] {
				if p := si.docs[d].Path; IsCode(p) && !IsTest(p) {
					ds = append(ds, d)
				}
			}
			for _, d := range ds {
				add(d, boostDir/math.Sqrt(float64(len(ds)*len(dirs))), "in the package named in the issue: "+name)
			}
		}
	}
}

// liftPackages adds to each Go file a share of the best score among the
// other Go files of its folder (its package), at most liftPackage of its
// own score. Only Go: there a folder is one compilation unit and one
// namespace, while a Python or JavaScript folder is a loose set of modules.
func (si *searchIndex) liftPackages(res []scored) {
	best := map[string][2]float64{} // per folder: best and second-best score
	for _, r := range res {
		p := si.docs[r.doc].Path
		if r.score <= 0 || LanguageOf(p) != LangGo || IsTest(p) {
			continue
		}
		d := path.Dir(p)
		b := best[d]
		switch {
		case r.score > b[0]:
			b = [2]float64{r.score, b[0]}
		case r.score > b[1]:
			b[1] = r.score
		}
		best[d] = b
	}
	for i := range res {
		r := &res[i]
		p := si.docs[r.doc].Path
		if r.score <= 0 || LanguageOf(p) != LangGo || IsTest(p) {
			continue
		}
		b := best[path.Dir(p)]
		sib := b[0]
		if sib == r.score {
			sib = b[1]
		}
		if lift := liftPackage * min(sib, r.score); lift > 0 {
			r.score += lift
			r.reasons = append(r.reasons, fmt.Sprintf("its package matches too (+%.2f)", lift))
		}
	}
}

// liftTwins lends a share of a test file's own score (before the test
// factor) to the file it tests by name: x_test.go → x.go in its folder,
// x.test.ts → x.ts, test_x.py → the one x.py of the tree. A test that
// matches the issue says which code the issue is about.
func (si *searchIndex) liftTwins(res []scored) {
	lift := map[int]float64{}
	for _, r := range res {
		p := si.docs[r.doc].Path
		raw := r.text + r.boost
		if raw <= 0 || !IsTest(p) {
			continue
		}
		d, ok := si.twin(p)
		if !ok || res[d].text <= 0 {
			continue
		}
		lift[d] = max(lift[d], liftTwin*raw)
	}
	for d, l := range lift {
		res[d].score += l
		res[d].reasons = append(res[d].reasons, fmt.Sprintf("its test matches the issue (+%.2f)", l))
	}
}

// liftTwin is the share of a matching test's score its twin gains.
const liftTwin = 0.15

// twin returns the document a test file tests by its name.
func (si *searchIndex) twin(p string) (int, bool) {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case strings.HasSuffix(stem, "_test"):
		d, ok := si.byPath[dir+strings.TrimSuffix(stem, "_test")+ext]
		return d, ok
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		d, ok := si.byPath[dir+strings.TrimSuffix(strings.TrimSuffix(stem, ".test"), ".spec")+ext]
		return d, ok
	case strings.HasPrefix(stem, "test_") && ext == ".py":
		var found []int
		for _, d := range si.byBase[strings.TrimPrefix(stem, "test_")+ext] {
			if !IsTest(si.docs[d].Path) {
				found = append(found, d)
			}
		}
		if len(found) == 1 {
			return found[0], true
		}
	}
	return 0, false
}
