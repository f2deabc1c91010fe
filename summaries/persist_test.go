package summaries_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/summaries"
)

// age sets every file's modification time an hour back, as in a checkout
// that has not been touched since.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

func TestLoadReusesTheSnapshotAndReadsOnlyChangedFiles(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, shopTree)
	age(t, dir)
	built, err := summaries.Build(t.Context(), open(t, dir), summaries.Options{})
	require.NoError(t, err)
	var snap bytes.Buffer
	require.NoError(t, built.Save(&snap))
	const issue = "`apply_coupon` says the coupon expired"

	src := open(t, dir)
	ix, reused, err := summaries.Load(t.Context(), src, bytes.NewReader(snap.Bytes()), summaries.Options{})
	require.NoError(t, err)
	assert.True(t, reused)
	assert.Zero(t, src.reads.Load(), "an untouched tree is not read again")
	assert.Zero(t, ix.LastStats().Parsed)
	assert.Equal(t, built.Search(issue, 5), ix.Search(issue, 5), "the same ranking as a fresh build")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "app/util.py"),
		[]byte("def money(x):\n    return round(x, 2)\n\n\ndef refund_voucher(x):\n    return -x\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "docs/guide.md")))
	src = open(t, dir)
	ix, reused, err = summaries.Load(t.Context(), src, bytes.NewReader(snap.Bytes()), summaries.Options{})
	require.NoError(t, err)
	assert.True(t, reused)
	st := ix.LastStats()
	assert.Equal(t, 1, st.Parsed, "only the edited file is read")
	assert.Equal(t, 1, st.Removed)
	assert.Nil(t, ix.File("docs/guide.md"))
	hits := ix.Search("`refund_voucher`", 1)
	require.Len(t, hits, 1)
	assert.Equal(t, "app/util.py", hits[0].Path)
}

func TestLoadIgnoresABadSnapshotAndDistrustsRecentFiles(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, shopTree)
	ix, reused, err := summaries.Load(t.Context(), open(t, dir), bytes.NewReader([]byte("not a snapshot")), summaries.Options{})
	require.NoError(t, err)
	assert.False(t, reused)
	assert.Equal(t, len(shopTree), ix.LastStats().Parsed)

	// files written just now may change again within the same mtime tick:
	// a snapshot taken now does not vouch for them
	var snap bytes.Buffer
	require.NoError(t, ix.Save(&snap))
	ix, reused, err = summaries.Load(t.Context(), open(t, dir), &snap, summaries.Options{})
	require.NoError(t, err)
	assert.True(t, reused)
	assert.Equal(t, len(shopTree), ix.LastStats().Parsed)
}
