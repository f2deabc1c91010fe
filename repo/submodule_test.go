package repo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo/gittest"
)

// A git submodule's folder, checked out or empty as a clone leaves it, is
// never read, listed into, searched or indexed; each tool says why.
func TestSubmoduleIsNamedNotEntered(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"main.go": "package main\n\n// library is used here\n"}, "integration")
	for name, dir := range map[string]string{"checked out": sm.Dir, "empty in a clone": sm.Clone(t)} {
		t.Run(name, func(t *testing.T) {
			ws, err := OpenWorkspace(dir)
			require.NoError(t, err)
			defer ws.Close()
			assert.Equal(t, []string{"integration"}, ws.Submodules())
			assert.Equal(t, "integration", ws.InSubmodule("integration/lib.txt"))
			assert.Empty(t, ws.InSubmodule("main.go"))

			_, err = ws.ReadFile(t.Context(), ReadFileParams{Path: "integration"})
			require.ErrorIs(t, err, ErrSubmodule)
			assert.True(t, IsModelError(err))
			assert.Contains(t, err.Error(), `"integration" is a git submodule (a pointer to a commit of another repository`)
			assert.NotContains(t, err.Error(), "is a directory")
			_, err = ws.ReadBytes("integration/lib.txt")
			require.ErrorIs(t, err, ErrSubmodule)
			assert.Contains(t, err.Error(), `"integration/lib.txt" lies in the git submodule "integration"`)

			files, err := ws.Files(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []string{".gitmodules", "main.go"}, files)

			tree, err := ws.ListDir(t.Context(), ListDirParams{Depth: 3})
			require.NoError(t, err)
			assert.Contains(t, tree, "integration/ (git submodule: another repository pinned at a commit; the bot cannot read or change it)")
			assert.NotContains(t, tree, "lib.txt")
			_, err = ws.ListDir(t.Context(), ListDirParams{Path: "integration"})
			require.ErrorIs(t, err, ErrSubmodule)

			out, err := ws.Grep(t.Context(), GrepParams{Pattern: "library"})
			require.NoError(t, err)
			assert.Contains(t, out, "main.go:3:")
			assert.NotContains(t, out, "lib.txt")
			_, err = ws.Grep(t.Context(), GrepParams{Pattern: "library", Path: "integration"})
			require.ErrorIs(t, err, ErrSubmodule)
		})
	}
	entries, err := os.ReadDir(filepath.Join(sm.Clone(t), "integration"))
	require.NoError(t, err)
	assert.Empty(t, entries, "the clone's submodule folder is empty, as the bot's clones leave it")
}

// Outside a git checkout, .gitmodules alone names the submodules.
func TestSubmodulesFromGitmodules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitmodules": "[submodule \"proto\"]\n\tpath = third_party/proto\n\turl = https://example.com/proto.git\n" +
			"[submodule \"bad\"]\n\tpath = ../outside\n\turl = https://example.com/bad.git\n",
		"third_party/README": "vendored\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "third_party", "proto"), 0o755))
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	assert.Equal(t, []string{"third_party/proto"}, ws.Submodules())
	tree, err := ws.ListDir(t.Context(), ListDirParams{})
	require.NoError(t, err)
	assert.Contains(t, tree, "proto/ (git submodule:")
}
