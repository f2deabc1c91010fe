package summaries_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/summaries"
)

// goTree is a Go project where one package matches an issue as a whole and
// a lone file elsewhere matches its words as well.
var goTree = map[string]string{
	"go.mod": "module example.com/music\n\ngo 1.22\n",
	"model/criteria/criteria.go": "package criteria\n\n// Criteria filters tracks of a smart playlist.\ntype Criteria struct{ Expr Expression }\n" +
		"\n// ToSQL renders the filter.\nfunc (c Criteria) ToSQL() string { return c.Expr.SQL() }\n",
	"model/criteria/operators.go": "package criteria\n\n// Expression is one operator of a filter.\ntype Expression interface{ SQL() string }\n" +
		"\ntype Is struct{ Field, Value string }\n\nfunc (i Is) SQL() string { return i.Field + \" = \" + i.Value }\n",
	"model/criteria/operators_test.go": "package criteria\n\nimport \"testing\"\n\nfunc TestIs(t *testing.T) { _ = Is{}.SQL() }\n",
	"server/handler.go":                "package server\n\n// handle answers a request for a playlist filter operator.\nfunc handle() string { return \"playlist filter operator\" }\n",
	"util/strings.go":                  "package util\n\n// Join joins strings.\nfunc Join(a, b string) string { return a + b }\n",
	"lib/pkg/packages/vendored.py":     "def playlist_filter_operator(): pass\n",
}

func TestSearchGoPackages(t *testing.T) {
	t.Parallel()
	idx, err := summaries.Build(t.Context(), open(t, writeTree(t, goTree)), summaries.Options{})
	require.NoError(t, err)

	hits := idx.Search("The criteria package has no playlist membership operator for a filter.", 10)
	require.NotEmpty(t, hits)
	top := paths(hits[:min(2, len(hits))])
	assert.ElementsMatch(t, []string{"model/criteria/criteria.go", "model/criteria/operators.go"}, top, "ranking: %v", paths(hits))
	why := strings.Join(hits[0].Reasons, "\n")
	assert.Contains(t, why, "in the package named in the issue: criteria")
	assert.Contains(t, why, "its package matches too")
	assert.Less(t, rank(hits, "model/criteria/operators.go"), rank(hits, "model/criteria/operators_test.go"))
	assert.Less(t, rank(hits, "server/handler.go"), rank(hits, "lib/pkg/packages/vendored.py"),
		"a packages/ folder inside a Python package is vendored code")
}
