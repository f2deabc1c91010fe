package coder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/work"
)

// In a clone whose submodule folder is empty, a plan item naming the
// submodule is blocked with the reason (no model call, no error), and a
// block the model writes into it is refused with that reason as feedback;
// the normal file is done and nothing lands in the submodule's folder.
func TestImplementLeavesASubmoduleAlone(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"main.go": "package main\n\nconst version = \"1.0\"\n"}, "integration")
	ws, err := repo.OpenWorkspace(sm.Clone(t))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	c, srv := scripted(t, "submodule_path", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "bump"}, &work.Plan{Items: []work.Item{
		item("main.go", work.ActionModify, "Bump version to 1.1."),
		item("integration", work.ActionModify, "Move the pointer to the library's 1.1."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining(), "no model call for the submodule")
	sub := itemByPath(t, res, "integration")
	require.Equal(t, ItemBlocked, sub.Status)
	require.Equal(t, "path is a git submodule (a pointer to a commit of another repository); the bot cannot change it", sub.Reason)
	m := itemByPath(t, res, "main.go")
	require.Equal(t, ItemDone, m.Status, m.Reason)
	require.Contains(t, strings.Join(m.Notes, "\n"), "write to integration/version.txt refused: path lies in the git submodule integration")
	require.Contains(t, readFile(t, ws, "main.go"), `const version = "1.1"`)
	require.Equal(t, []string{"main.go"}, res.Changes.Paths())
	require.ElementsMatch(t, []string{"integration", "integration/version.txt"}, res.Blocked)
	entries, err := os.ReadDir(filepath.Join(ws.Dir(), "integration"))
	require.NoError(t, err)
	require.Empty(t, entries, "nothing written into the submodule's folder")
}
