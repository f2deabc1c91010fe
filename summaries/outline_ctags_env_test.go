package summaries

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCtagsGetsNoBotSecrets runs the ctags path with a stand-in binary that
// records the environment it was started with and answers one JSON tag: the
// bot's ISSUESMITH_* settings must not be in it, the rest must.
func TestCtagsGetsNoBotSecrets(t *testing.T) {
	t.Setenv("ISSUESMITH_TEST_SECRET", "hunter2-ctags")
	t.Setenv("SUMMARIES_KEPT", "kept")
	dir := t.TempDir()
	envFile := filepath.Join(dir, "env.txt")
	bin := filepath.Join(dir, "ctags")
	script := "#!/bin/sh\nenv > '" + envFile + "'\n" +
		`echo '{"_type":"tag","name":"Hello","kind":"function","line":1,"end":3,"pattern":"/^def Hello():$/"}'` + "\n"
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))

	syms, ok := ctagsOutlineWith(bin, "x.py", []byte("def Hello():\n    pass\n"))
	require.True(t, ok, "the stand-in's tag is read")
	require.Len(t, syms, 1)
	assert.Equal(t, "Hello", syms[0].Name)

	env, err := os.ReadFile(envFile)
	require.NoError(t, err)
	assert.NotContains(t, string(env), "hunter2-ctags")
	assert.NotContains(t, string(env), "ISSUESMITH_")
	assert.True(t, strings.Contains(string(env), "SUMMARIES_KEPT=kept"), "the rest of the environment is passed")
}
