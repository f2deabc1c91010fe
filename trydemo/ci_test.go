package trydemo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The demo's CI log is what `go test` really prints for the bot's first
// commit: the sample with the scripted coder's two answers applied by the
// edit engine. The scripted fix then makes go test pass.
func TestCIFailureIsWhatGoTestSays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the sample")
	}
	script, err := llmtest.ParseScript(scriptYAML)
	require.NoError(t, err)
	answer := map[string]string{}
	for _, ex := range script {
		answer[ex.Name] = ex.Reply.Content
	}
	dir := t.TempDir()
	for p, content := range sampleFiles {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644))
	}
	apply := func(name string) {
		rep, err := edit.Apply(dir, answer[name], edit.Options{})
		require.NoError(t, err, name)
		require.NotEmpty(t, rep.Changed, "%s: %+v", name, rep)
	}
	goTest := func() (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "./...")
		cmd.Dir, cmd.Env = dir, append(procenv.Scrubbed(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	apply("coder temp.go")
	apply("coder temp_test.go")
	out, err := goTest()
	require.Error(t, err, out)
	for _, line := range strings.Split(ciFailure, "\n") {
		_, text, _ := strings.Cut(line, "Z ")
		if strings.HasPrefix(strings.TrimSpace(text), "temp_test.go:") || strings.HasPrefix(text, "--- FAIL") {
			require.Contains(t, out, text, "the scripted log says what go test says")
		}
	}
	apply("CI fix round, temp_test.go")
	out, err = goTest()
	require.NoError(t, err, out)
}
