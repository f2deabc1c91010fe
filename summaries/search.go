package summaries

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Hit is one ranked file of a search.
type Hit struct {
	Path    string  `json:"path"`
	Score   float64 `json:"score"`
	Summary string  `json:"summary,omitempty"`
	// Symbols are the definitions that best match the query, as
	// "L12-40 signature" lines.
	Symbols []string `json:"symbols,omitempty"`
	// Reasons say which signals ranked the file (path named in the issue,
	// stack-trace frame, defines an identifier, import neighbour), each
	// with what it added to the score.
	Reasons []string `json:"reasons,omitempty"`
	// Signals explain the whole score: the text match and the words that
	// gave most of it, then Reasons, then the factor of the file's kind
	// (test, generated, vendored, documentation).
	Signals []string `json:"signals,omitempty"`
}

// BM25 parameters, the usual defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Weights of the explicit signals, in units of the best text score. They
// reflect how an engineer reads an issue: a file named outright or a frame
// of the stack trace is where to look first; a definition of an identifier
// written as code comes next; the words of the text only rank the rest.
const (
	boostPath      = 1.0  // the issue names the file
	boostFrame     = 0.5  // a stack-trace frame in the file
	boostLastFrame = 0.3  // extra for the innermost frame inside the tree
	boostModule    = 0.6  // a dotted module name resolves to the file
	boostDir       = 0.4  // the issue names the file's folder or package
	boostDef       = 0.6  // the file defines an identifier written as code
	boostPhrase    = 0.5  // the file contains a literal of the issue verbatim
	maxPhraseBoost = 1.0  // cap on the sum of phrase boosts per file
	maxDefBoost    = 1.2  // cap on the sum of definition boosts per file
	liftNeighbour  = 0.15 // share of a strong hit's score lent to its import neighbours
	maxStrong      = 5    // how many of the best hits lend to their neighbours
	factorTest     = 0.3  // tests rank below the code they test
	factorNonCode  = 0.35 // documentation and data rank below code
	factorVendored = 0.1
	// generated code changes by changing its source and regenerating
	factorGenerated = 0.3
	// an applied migration is history: a fix adds a new one
	factorMigration = 0.5
	// code in documentation, example and benchmark folders illustrates
	// the project; fixes land in the project itself
	factorAuxiliary = 0.5
)

type scored struct {
	doc     int
	text    float64 // normalised BM25F score
	boost   float64
	score   float64
	factor  string // the kind of file that scaled the score, with the factor
	reasons []string
}

// Search ranks the indexed files for a natural-language query such as an
// issue text and returns the best k (all scored files when k <= 0). Scores
// are comparable within one result only.
func (ix *Index) Search(text string, k int) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	si := ix.post
	if si == nil || len(si.docs) == 0 {
		return nil
	}
	q := parseQuery(text)
	res := make([]scored, len(si.docs))
	for i := range res {
		res[i].doc = i
	}
	idf := si.idfs(q.terms)
	si.bm25(q.terms, idf, res)
	si.explicit(q, res)
	si.phrases(ix.src, q.phrases, res)
	for i := range res {
		r := &res[i]
		r.score = r.text + r.boost
		p := si.docs[r.doc].Path
		if f, why := kindFactor(p, si.docs[r.doc].generated); f != 1 {
			r.score *= f
			r.factor = fmt.Sprintf("%s (x%.2f)", why, f)
		}
	}
	si.liftTwins(res)
	si.liftPackages(res)
	ix.liftNeighbours(res)
	sort.Slice(res, func(i, j int) bool {
		if res[i].score != res[j].score {
			return res[i].score > res[j].score
		}
		return si.docs[res[i].doc].Path < si.docs[res[j].doc].Path
	})
	var hits []Hit
	for _, r := range res {
		if r.score <= 0 || (k > 0 && len(hits) == k) {
			break
		}
		f := si.docs[r.doc]
		hits = append(hits, Hit{Path: f.Path, Score: math.Round(r.score*1e4) / 1e4, Summary: f.Summary,
			Symbols: bestSymbols(f, q), Reasons: r.reasons, Signals: si.signals(r, q, idf)})
	}
	return hits
}

// bm25 sets the normalised BM25F text score of every document: body terms,
// plus path, definition-name and model-summary terms weighted by wPath,
// wSym and wSummary.
func (si *searchIndex) bm25(terms []string, idfs map[string]float64, res []scored) {
	best := 0.0
	for _, t := range terms {
		idf := idfs[t]
		if idf == 0 {
			continue
		}
		for d := range si.docs {
			f := si.tf(d, t)
			if f == 0 {
				continue
			}
			norm := bm25K1 * (1 - bm25B + bm25B*float64(si.fieldLen[d])/si.avgLen)
			res[d].text += idf * f * (bm25K1 + 1) / (f + norm)
		}
	}
	for _, r := range res {
		best = max(best, r.text)
	}
	if best > 0 {
		for i := range res {
			res[i].text /= best
		}
	}
}

// tf is the BM25F term frequency of t in document d.
func (si *searchIndex) tf(d int, t string) float64 {
	f := si.docs[d]
	return float64(f.terms[t]) + wPath*float64(si.pathTerms[d][t]) + wSym*float64(si.symTerms[d][t]) +
		wSummary*float64(si.sumTerms[d][t])
}

// idfs returns the idf of each term.
func (si *searchIndex) idfs(terms []string) map[string]float64 {
	m := make(map[string]float64, len(terms))
	for _, t := range terms {
		if _, ok := m[t]; !ok {
			m[t] = si.idf(t)
		}
	}
	return m
}

// idf is the inverse document frequency of t over the BM25F fields, 0 for
// a term in no document.
func (si *searchIndex) idf(t string) float64 {
	df := 0
	for d := range si.docs {
		if si.tf(d, t) > 0 {
			df++
		}
	}
	if df == 0 {
		return 0
	}
	n := float64(len(si.docs))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// liftNeighbours lends a share of each strong hit's score to the files it
// imports and the files importing it, when they match the text at all: a
// fix often lands one import away from where the words of the issue point.
func (ix *Index) liftNeighbours(res []scored) {
	si := ix.post
	if ix.graph == nil {
		return
	}
	// the strong hits: the best few, and only those near the top score
	strong := make([]scored, 0, maxStrong+1)
	for _, r := range res {
		if r.score <= 0 {
			continue
		}
		i := sort.Search(len(strong), func(i int) bool { return strong[i].score < r.score })
		strong = append(strong[:i], append([]scored{r}, strong[i:]...)...)
		if len(strong) > maxStrong {
			strong = strong[:maxStrong]
		}
	}
	if len(strong) == 0 {
		return
	}
	top := strong[0].score
	lift := make([]float64, len(res))
	for _, r := range strong {
		if r.score < 0.5*top {
			break
		}
		p := si.docs[r.doc].Path
		nb := append(append([]string(nil), ix.graph.out[p]...), ix.graph.in[p]...)
		if len(nb) == 0 {
			continue
		}
		share := liftNeighbour * r.score / math.Sqrt(float64(len(nb)))
		for _, n := range nb {
			if d, ok := si.byPath[n]; ok && res[d].text > 0 {
				lift[d] = max(lift[d], share)
			}
		}
	}
	for i := range res {
		if lift[i] > 0 {
			res[i].score += lift[i]
			res[i].reasons = append(res[i].reasons, fmt.Sprintf("imports or imported by a strong hit (+%.2f)", lift[i]))
		}
	}
}

// bestSymbols returns up to three definitions of f whose names share the
// most terms with the query, identifiers written as code first.
func bestSymbols(f *FileInfo, q *query) []string {
	if f.Outline == nil {
		return nil
	}
	qt := map[string]bool{}
	for _, t := range q.terms {
		qt[t] = true
	}
	type cand struct {
		s     Symbol
		score float64
	}
	var cs []cand
	var walk func([]Symbol)
	walk = func(ss []Symbol) {
		for _, s := range ss {
			sc := 0.0
			if q.idents[s.Name] {
				sc += 10
			}
			eachTerm(s.Name, func(t string) {
				if qt[t] {
					sc++
				}
			})
			if sc > 0 {
				cs = append(cs, cand{s, sc})
			}
			walk(s.Children)
		}
	}
	walk(f.Outline.Symbols)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var out []string
	for _, c := range cs[:min(3, len(cs))] {
		sig := c.s.Signature
		if sig == "" {
			sig = c.s.Kind + " " + c.s.Name
		}
		out = append(out, fmt.Sprintf("L%d-%d %s", c.s.StartLine, c.s.EndLine, sig))
	}
	return out
}

// kindFactor is the factor a file's kind puts on its score, and the kind.
func kindFactor(p string, generated bool) (float64, string) {
	switch {
	case vendored(p):
		return factorVendored, "vendored code"
	case IsTest(p):
		return factorTest, "test file"
	case isMock(p):
		return factorTest, "mock or fake"
	case generated:
		return factorGenerated, "generated code"
	case isMigration(p):
		return factorMigration, "database migration"
	case !IsCode(p):
		return factorNonCode, "not code"
	case auxiliary(p):
		return factorAuxiliary, "docs, example or benchmark code"
	}
	return 1, ""
}

// signals explains r's score for --explain: the text match with its best
// words, the boosts, and the factor of the file's kind.
func (si *searchIndex) signals(r scored, q *query, idf map[string]float64) []string {
	type tw struct {
		t string
		w float64
	}
	var ts []tw
	for _, t := range q.terms {
		if w := si.tf(r.doc, t); w > 0 {
			ts = append(ts, tw{t, w * idf[t]})
		}
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].w > ts[j].w })
	var words []string
	for _, x := range ts[:min(5, len(ts))] {
		words = append(words, x.t)
	}
	out := []string{fmt.Sprintf("words of the issue %.2f (%d matched; most: %s)", r.text, len(ts), strings.Join(words, ", "))}
	out = append(out, r.reasons...)
	if r.factor != "" {
		out = append(out, r.factor)
	}
	return out
}
