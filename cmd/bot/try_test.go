package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bot try --out writes the page of a real run (trydemo's tests check the
// run and the page in detail) and tells the steps on stderr.
func TestTryWritesThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole flow")
	}
	file := filepath.Join(t.TempDir(), "try.html")
	_, stderr, err := execCmd(t, newRootCmd(), "", "try", "--out", file)
	require.NoError(t, err, stderr)
	page, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(page), "the model's answers are scripted")
	require.Contains(t, string(page), "Pull request #2")
	require.Contains(t, stderr, "opened draft pull request #2")
	require.True(t, strings.HasSuffix(stderr, "wrote "+file+"\n"), stderr)
	require.NotContains(t, stderr, "ghs_", "no installation token on the terminal")

	_, _, err = execCmd(t, newRootCmd(), "", "try", "extra")
	require.Error(t, err)
}
