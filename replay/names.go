package replay

import (
	"strings"
)

// names finds a listed test among the names a run reported, in the
// shapes public sets write pytest's node ids in: SWE-bench Pro's metadata
// cuts a parametrised id at the first space inside its brackets
// ("test_x[a b]" listed as "test_x[a") and collapses "//" to "/" (a URL in
// an id). A listed name matches a reported one only through those two
// rules, never by a looser likeness, so it cannot take a different test's
// result.
type names struct {
	results map[string]string
	norm    map[string][]string // slash-collapsed reported name → the names
}

func indexNames(results map[string]string) *names {
	n := &names{results: results, norm: map[string][]string{}}
	for name := range results {
		k := collapseSlashes(name)
		n.norm[k] = append(n.norm[k], name)
	}
	return n
}

// status is the listed name's result: as written; else the reported names
// equal to it once slashes are collapsed; else, for an id cut inside its
// brackets, the reported ids it is the start of up to a space. Several
// reported names are one verdict: failed if any failed, passed if all
// passed (a cut name covers each case it could be); "" when none fits.
func (n *names) status(listed string) string {
	if st, ok := n.results[listed]; ok {
		return st
	}
	k := collapseSlashes(listed)
	if got := n.norm[k]; len(got) > 0 {
		return n.worst(got)
	}
	if !cutInBrackets(k) {
		return ""
	}
	var got []string
	for norm, reported := range n.norm {
		if strings.HasPrefix(norm, k+" ") {
			got = append(got, reported...)
		}
	}
	return n.worst(got)
}

// worst is one verdict for several reported names.
func (n *names) worst(reported []string) string {
	out := ""
	for _, r := range reported {
		st := n.results[r]
		switch {
		case st == "fail", out == "":
			out = st
		case out == "pass":
			out = st // a skip among passes: not all passed
		}
		if out == "fail" {
			return out
		}
	}
	return out
}

// cutInBrackets reports whether id's parametrisation opens and is not
// closed: the metadata cut it at a space.
func cutInBrackets(id string) bool {
	i := strings.Index(id, "[")
	return i >= 0 && !strings.Contains(id[i:], "]")
}

func collapseSlashes(s string) string {
	for strings.Contains(s, "//") {
		s = strings.ReplaceAll(s, "//", "/")
	}
	return s
}
