package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeTree creates files (path → content) under dir. A content starting
// with "->" makes a symlink to the rest of the string.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		if target, ok := strings.CutPrefix(content, "->"); ok {
			require.NoError(t, os.Symlink(target, full))
			continue
		}
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

// escapeFixture builds a workspace next to a secret directory outside it,
// with symlinks leading in and out.
func escapeFixture(t testing.TB) (*Workspace, string) {
	t.Helper()
	base := t.TempDir()
	secret := filepath.Join(base, "secret")
	writeTree(t, secret, map[string]string{"key.txt": "TOP-SECRET-MARKER\n"})
	root := filepath.Join(base, "ws")
	writeTree(t, root, map[string]string{
		"ok.txt":            "hello\n",
		"dir/inner.txt":     "inner\n",
		"link_in":           "->ok.txt",
		"dir/link_up_in":    "->../ok.txt",
		"link_dir_in":       "->dir",
		"link_out_abs":      "->" + filepath.Join(secret, "key.txt"),
		"link_out_rel":      "->../secret/key.txt",
		"link_out_dir":      "->../secret",
		"dir/link_out_deep": "->../../secret",
		"link_dangling_out": "->/nonexistent/for/sure",
		"link_root":         "->/",
		"loop_a":            "->loop_b",
		"loop_b":            "->loop_a",
	})
	ws, err := OpenWorkspace(root)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws, secret
}

func TestConfinement(t *testing.T) {
	t.Parallel()
	ws, _ := escapeFixture(t)
	tests := []struct {
		name string
		path string
		want error // nil: readable
	}{
		{"plain file", "ok.txt", nil},
		{"dot segments inside", "dir/../ok.txt", nil},
		{"symlink inside", "link_in", nil},
		{"symlink up but inside", "dir/link_up_in", nil},
		{"through dir symlink inside", "link_dir_in/inner.txt", nil},
		{"missing", "nope.txt", ErrNotExist},
		{"parent", "../secret/key.txt", ErrOutsideRoot},
		{"parent hidden in middle", "dir/../../secret/key.txt", ErrOutsideRoot},
		{"bare dotdot", "..", ErrOutsideRoot},
		{"absolute", "/etc/passwd", ErrOutsideRoot},
		{"absolute into root", filepath.Join(ws.Dir(), "ok.txt"), ErrOutsideRoot},
		{"absolute symlink out", "link_out_abs", ErrOutsideRoot},
		{"relative symlink out", "link_out_rel", ErrOutsideRoot},
		{"through dir symlink out", "link_out_dir/key.txt", ErrOutsideRoot},
		{"deep dir symlink out", "dir/link_out_deep/key.txt", ErrOutsideRoot},
		{"dangling symlink out", "link_dangling_out", ErrOutsideRoot},
		{"symlink to /", "link_root/etc/passwd", ErrOutsideRoot},
		{"through a file", "ok.txt/x", ErrNotExist},
		{"symlink loop", "loop_a", ErrNotExist},
		{"name too long", strings.Repeat("n", 300), ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ws.ReadBytes(tt.path)
			_, rfErr := ws.ReadFile(t.Context(), ReadFileParams{Path: tt.path})
			grepOut, grepErr := ws.Grep(t.Context(), GrepParams{Pattern: ".", Path: tt.path})
			if tt.want == nil {
				require.NoError(t, err)
				require.NoError(t, rfErr)
				require.NoError(t, grepErr)
				require.NotEmpty(t, data)
				require.Contains(t, grepOut, ":1: "+strings.TrimSpace(string(data)))
				return
			}
			for _, e := range []error{err, rfErr, grepErr} {
				require.ErrorIs(t, e, tt.want)
				require.True(t, IsModelError(e))
				require.Contains(t, e.Error(), tt.path, "the error names the path")
			}
		})
	}
}

func TestListDirConfinement(t *testing.T) {
	t.Parallel()
	ws, _ := escapeFixture(t)
	for _, p := range []string{"link_out_dir", "dir/link_out_deep", "..", "/tmp", "link_root"} {
		_, err := ws.ListDir(t.Context(), ListDirParams{Path: p})
		require.ErrorIs(t, err, ErrOutsideRoot, p)
	}
	out, err := ws.ListDir(t.Context(), ListDirParams{Path: "link_dir_in"})
	require.NoError(t, err)
	require.Contains(t, out, "inner.txt")
	out, err = ws.ListDir(t.Context(), ListDirParams{})
	require.NoError(t, err)
	require.Contains(t, out, "link_out_dir -> (outside the repository)", "symlinks are shown, not followed")
	require.Contains(t, out, "link_in -> ok.txt")
	require.NotContains(t, out, "key.txt")
	_, err = ws.ListDir(t.Context(), ListDirParams{Path: "ok.txt"})
	require.ErrorIs(t, err, ErrNotDir)
}

func TestWalkNeverLeaves(t *testing.T) {
	t.Parallel()
	ws, _ := escapeFixture(t)
	files, err := ws.Files(t.Context())
	require.NoError(t, err)
	require.Equal(t, []string{"dir/inner.txt", "ok.txt"}, files)
	out, err := ws.ListDir(t.Context(), ListDirParams{})
	require.NoError(t, err)
	require.Contains(t, out, "loop_a -> loop_b (broken link)")
	out, err = ws.Grep(t.Context(), GrepParams{Pattern: "SECRET"})
	require.NoError(t, err)
	require.Contains(t, out, "no matches")
}

func TestClean(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", "."}, {".", "."}, {"./a/b/", "a/b"}, {"a//b", "a/b"}, {" a/b ", "a/b"}, {"a/./b/../c", "a/c"},
	}
	for _, tt := range tests {
		got, err := Clean(tt.in)
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, got, tt.in)
	}
	for _, bad := range []string{"..", "../", "a/../..", "/", "/a", "a\x00b"} {
		_, err := Clean(bad)
		require.Error(t, err, bad)
		require.True(t, IsModelError(err), bad)
	}
}

// FuzzPathEscape throws arbitrary paths at every read operation of a
// workspace sitting next to a secret, through symlinks that lead out. No
// operation may ever return the secret, and any path that succeeds must
// resolve inside the root.
func FuzzPathEscape(f *testing.F) {
	for _, seed := range []string{
		"ok.txt", "../secret/key.txt", "link_out_abs", "link_out_dir/key.txt", "dir/link_out_deep/key.txt",
		"link_dir_in/../link_out_rel", "link_root/", "/", "..", "dir/../../ws/ok.txt", "link_in/..", "./././..",
		"dir/link_up_in", "link_dir_in/../../secret/key.txt", "link_out_dir/../ws/ok.txt",
	} {
		f.Add(seed)
	}
	ws, secret := escapeFixture(f)
	f.Fuzz(func(t *testing.T, p string) {
		ctx := t.Context()
		data, err := ws.ReadBytes(p)
		if err == nil {
			require.NotContains(t, string(data), "TOP-SECRET")
			real, rerr := filepath.EvalSymlinks(filepath.Join(ws.Dir(), filepath.FromSlash(p)))
			if rerr == nil {
				require.True(t, real == ws.Dir() || strings.HasPrefix(real, ws.Dir()+string(filepath.Separator)),
					"%q resolved to %s outside %s", p, real, ws.Dir())
			}
		}
		for _, out := range []string{
			must(ws.ReadFile(ctx, ReadFileParams{Path: p})),
			must(ws.ListDir(ctx, ListDirParams{Path: p, Depth: 6})),
			must(ws.Grep(ctx, GrepParams{Pattern: "SECRET", Path: p})),
		} {
			require.NotContains(t, out, "TOP-SECRET")
			require.NotContains(t, out, "key.txt", "nothing under %s is ever listed", secret)
		}
	})
}

// must keeps the output of a call and drops its error: the fuzz test only
// cares about what leaks into successful output.
func must(out string, _ error) string { return out }

// A file over MaxFileBytes is refused as a model-fixable mistake instead of
// being read into memory whole.
func TestReadBytesRefusesHugeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small.txt"), []byte("ok\n"), 0o644))
	f, err := os.Create(filepath.Join(dir, "huge.bin"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxFileBytes+1)) // sparse: no disk, no time
	require.NoError(t, f.Close())
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	_, err = ws.ReadBytes("huge.bin")
	require.ErrorIs(t, err, ErrBadArgument)
	require.True(t, IsModelError(err))
	data, err := ws.ReadBytes("small.txt")
	require.NoError(t, err)
	require.Equal(t, "ok\n", string(data))
}
