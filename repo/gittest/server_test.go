package gittest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/stretchr/testify/require"
)

// gitCLI runs git with no credential helpers or prompts.
func gitCLI(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestServerServesAndChecksToken(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, gittest.WithToken("s3cret-token"))
	url := srv.Seed(t, "acme/app", map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	require.Equal(t, srv.URL()+"/acme/app.git", url)

	dir := t.TempDir()
	out, err := gitCLI(dir, "clone", "--quiet", strings.Replace(url, "http://", "http://x-access-token:wrong@", 1), "bad")
	require.Error(t, err, out)
	require.Positive(t, srv.AuthFailures())
	out, err = gitCLI(dir, "clone", "--quiet", url, "none")
	require.Error(t, err, "no credentials: %s", out)

	out, err = gitCLI(dir, "clone", "--quiet", strings.Replace(url, "http://", "http://x-access-token:s3cret-token@", 1), "good")
	require.NoError(t, err, out)
	data, err := os.ReadFile(filepath.Join(dir, "good", "dir", "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "b\n", string(data))
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	srv.Seed(t, "o/r", map[string]string{"a.txt": "a\n", "gone.txt": "x\n"})
	require.Empty(t, srv.Head(t, "o/r", "feature"))
	h := srv.Commit(t, "o/r", "feature", map[string]string{"b.txt": "b\n", "gone.txt": gittest.Delete}, "feature work")
	require.Equal(t, h, srv.Head(t, "o/r", "feature"))
	require.Equal(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, srv.Files(t, "o/r", "feature"))
	log := srv.Log(t, "o/r", "feature")
	require.Len(t, log, 2)
	require.Equal(t, "feature work", log[0].Message)
	require.Equal(t, gittest.Committer, log[0].Author)
	require.Equal(t, []string{log[1].Hash}, log[0].Parents)

	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "x.go"), []byte("package x\n"), 0o644))
	srv.ImportDir(t, "o/imported", "main", src)
	require.Equal(t, map[string]string{"x.go": "package x\n"}, srv.Files(t, "o/imported", "main"))

	srv.RejectPushes(t, "o/r", "no pushes today")
	work := t.TempDir()
	_, err := gitCLI(work, "clone", "--quiet", srv.RepoURL("o/r"), "c")
	require.NoError(t, err)
	out, err := gitCLI(filepath.Join(work, "c"), "push", "origin", "HEAD:refs/heads/other")
	require.Error(t, err)
	require.Contains(t, out, "no pushes today")
}

// A token check accepts the tokens its predicate accepts at the time of the
// request (a set that grows while the test runs: "second" is refused, then
// pushes once it is valid), and pushes are counted.
func TestServerChecksTokensByPredicate(t *testing.T) {
	t.Parallel()
	var valid sync.Map
	valid.Store("first", true)
	srv := gittest.NewServer(t, gittest.WithTokenCheck(func(tok string) bool { _, ok := valid.Load(tok); return ok }))
	url := srv.Seed(t, "acme/app", map[string]string{"a.txt": "a\n"})
	with := func(tok string) string { return strings.Replace(url, "http://", "http://x-access-token:"+tok+"@", 1) }

	dir := t.TempDir()
	out, err := gitCLI(dir, "clone", "--quiet", with("second"), "refused")
	require.Error(t, err, out)
	require.Positive(t, srv.AuthFailures())
	out, err = gitCLI(dir, "clone", "--quiet", with("first"), "c")
	require.NoError(t, err, out)

	valid.Store("second", true)
	work := filepath.Join(dir, "c")
	out, err = gitCLI(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "--quiet", "--allow-empty", "-m", "empty")
	require.NoError(t, err, out)
	out, err = gitCLI(work, "push", "--quiet", with("second"), "HEAD:refs/heads/next")
	require.NoError(t, err, out)
	require.Equal(t, int64(1), srv.Pushes())
	require.NotEmpty(t, srv.Head(t, "acme/app", "next"))
}
