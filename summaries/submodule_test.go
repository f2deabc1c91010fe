package summaries_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/summaries"
)

// A checked-out git submodule is another repository: its files are neither
// indexed nor found by search, though they match the words.
func TestSearchSkipsSubmodules(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{
		"go.mod":  "module example.com/app\n\ngo 1.22\n",
		"main.go": "package main\n\n// library loads the library.\nfunc library() {}\n",
	}, "integration")
	idx, err := summaries.Build(t.Context(), open(t, sm.Dir), summaries.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{".gitmodules", "go.mod", "main.go"}, idx.Files())
	hits := idx.Search("the library fails to load", 10)
	require.NotEmpty(t, hits)
	assert.NotContains(t, paths(hits), "integration/lib.txt")
	assert.Equal(t, "main.go", hits[0].Path)
}
