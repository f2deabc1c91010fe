package tb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var _ TB = (*testing.T)(nil) // the fakes keep taking a test's T

func TestSession(t *testing.T) {
	s, err := NewSession(t.TempDir())
	require.NoError(t, err)
	var order []int
	s.Cleanup(func() { order = append(order, 1) })
	s.Cleanup(func() { order = append(order, 2) })
	dir := s.TempDir()
	require.True(t, strings.HasPrefix(dir, s.Dir()+string(filepath.Separator)))
	require.NotEqual(t, dir, s.TempDir())

	// Fatalf stops fn and becomes Run's error; Errorf is kept for Err.
	reached := false
	err = s.Run(func() error {
		s.Fatalf("gittest: %s", "no git")
		reached = true
		return nil
	})
	require.EqualError(t, err, "gittest: no git")
	require.False(t, reached)
	require.NoError(t, s.Err())
	s.Errorf("llmtest: unexpected request #%d", 3)
	s.Errorf("llmtest: script not finished")
	require.EqualError(t, s.Err(), "llmtest: unexpected request #3\nllmtest: script not finished")
	require.Panics(t, func() { _ = s.Run(func() error { panic("a bug") }) }, "other panics go on")

	require.NoError(t, s.Context().Err())
	require.NoError(t, s.Close())
	require.Equal(t, []int{2, 1}, order)
	require.Error(t, s.Context().Err())
	_, err = os.Stat(s.Dir())
	require.True(t, os.IsNotExist(err))
}

// Only `bot try` (trydemo) may bring the fakes into the binary: the App's
// own packages never depend on them, nor on this package.
func TestFakesStayOutOfTheApp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	mod := "github.com/issuesmith/issuesmith/"
	out, err := exec.Command("go", "list", "-deps", mod+"server", mod+"agents", mod+"replay/...").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), mod+"workflow\n", "go list listed the dependencies")
	for _, fake := range []string{"ghapp/ghtest", "llm/llmtest", "repo/gittest", "internal/tb"} {
		require.NotContains(t, string(out), mod+fake+"\n")
	}
}
