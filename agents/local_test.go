package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// A Local run whose model cannot be reached stops at the first stage that
// asks it, names that stage (bot replay reports stage_failed:<stage>) with
// the agent's own error text, and keeps the stages' wall times.
func TestLocalNamesTheStageThatFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644))
	ms, err := NewModels(modelEnv("http://127.0.0.1:1/v1"))
	require.NoError(t, err)
	model, err := ms.ForRepo(config.DefaultRepo())
	require.NoError(t, err)
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	var heard []string
	l := &Local{Model: model, Repo: config.DefaultRepo(), Progress: func(ev work.Event) { heard = append(heard, string(ev.Kind)+" "+ev.Stage) }}
	out, err := l.Run(t.Context(), ws, preagent.Issue{Title: "Add B", Body: "a.go needs a B function"})
	var se *StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "explore", se.Stage)
	require.Equal(t, se.Err.Error(), err.Error(), "the text is the stage's own")
	require.Len(t, out.Stages, 1)
	require.Equal(t, "explore", out.Stages[0].Stage)
	require.Nil(t, out.Spec)
	require.Equal(t, []string{"stage indexing"}, heard)
}
