package oracle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/work"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if text == "" {
			require.NoError(t, os.Remove(p))
			continue
		}
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// repeated lines make git's three lines of context occur twice in a.go,
// so the second block must widen until it is unique.
var repeated = strings.Repeat("\tx++\n", 4)

const middle = "func C() string {\n\ts := \"c\"\n\ts += \"1\"\n\ts += \"2\"\n\ts += \"3\"\n\ts += \"4\"\n\treturn s\n}\n\n"

// A real git diff of a multi-hunk change (with context that repeats), a new
// file, a deleted file and a rename becomes blocks that, applied one after
// the other each where its SEARCH text occurs once, rebuild the fix.
func TestFixesRebuildTheGoldChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	base := map[string]string{
		"a.go": "package a\n\nfunc A() int {\n\tx := 0\n" + repeated + "\treturn x\n}\n\n" + middle +
			"func B() int {\n\tx := 0\n" + repeated + "\treturn x\n}\n",
		"gone.go": "package a\n\nconst Gone = 1\n",
		"old.go":  "package a\n\n// Old is moved.\nconst Old = 2\n\nconst Keep = 3\n",
	}
	write(t, dir, base)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	fixed := strings.Replace(base["a.go"], "\treturn x\n}\n\nfunc C", "\treturn x + 1\n}\n\nfunc C", 1)
	fixed = strings.TrimSuffix(fixed, "\treturn x\n}\n") + "\treturn x * 2\n}\n"
	write(t, dir, map[string]string{"a.go": fixed, "gone.go": "", "new.go": "package a\n\nconst New = 4\n"})
	require.NoError(t, os.Rename(filepath.Join(dir, "old.go"), filepath.Join(dir, "moved.go")))
	write(t, dir, map[string]string{"moved.go": strings.Replace(base["old.go"], "Keep = 3", "Keep = 30", 1)})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "fix")
	patch := git(t, dir, "diff", "-M", "HEAD~1", "HEAD")
	require.Contains(t, patch, "rename from old.go")

	fixes, limits, err := Fixes(patch, func(p string) ([]byte, error) { return []byte(base[p]), nil })
	require.NoError(t, err)
	require.Empty(t, limits)
	got := map[string]Fix{}
	for _, f := range fixes {
		got[f.Path+" "+string(f.Action)] = f
	}
	require.Len(t, got, 5)
	require.Contains(t, got, "gone.go delete")
	require.Contains(t, got, "old.go delete")
	require.Equal(t, "package a\n\nconst New = 4\n", got["new.go add"].Content)
	require.Equal(t, strings.Replace(base["old.go"], "Keep = 3", "Keep = 30", 1), got["moved.go add"].Content)

	a := got["a.go modify"]
	require.Len(t, a.Blocks, 2, "one block per hunk")
	text := base["a.go"]
	for _, b := range a.Blocks {
		require.Equal(t, 1, strings.Count(text, b.Search), "a SEARCH text occurs once: %q", b.Search)
		require.Less(t, strings.Count(b.Search, "\n"), 12, "context stays a few lines, not the file")
		text = strings.Replace(text, b.Search, b.Replace, 1)
	}
	require.Equal(t, fixed, text)
	require.True(t, strings.HasPrefix(a.Blocks[1].Search, "func B() int {\n"), "widened up to the first unique line: %q", a.Blocks[1].Search)
}

// A patch that does not match the files it is read against, or a binary
// change, is an error naming the file, not a wrong block.
func TestFixesRefuseWhatTheyCannotWrite(t *testing.T) {
	t.Parallel()
	patch := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package a\n-const A = 1\n+const A = 2\n"
	_, _, err := Fixes(patch, func(string) ([]byte, error) { return []byte("package a\nconst A = 9\n"), nil })
	require.ErrorContains(t, err, "a.go: hunk @@ -1,2 does not match the base file")
	fx, _, err := Fixes(patch, func(string) ([]byte, error) { return []byte("package a\nconst A = 1\n"), nil })
	require.NoError(t, err)
	require.Equal(t, []Fix{{Path: "a.go", Action: work.ActionModify,
		Blocks: []Block{{Search: "package a\nconst A = 1\n", Replace: "package a\nconst A = 2\n"}}}}, fx)

	bin := "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\nBinary files a/logo.png and b/logo.png differ\n"
	_, _, err = Fixes(bin, func(string) ([]byte, error) { return nil, nil })
	require.ErrorContains(t, err, "logo.png: a binary change cannot be written as a text edit")
	_, _, err = Fixes("", nil)
	require.ErrorContains(t, err, "changes no file")
}

// A git submodule's pointer in a gold patch is a stated limit: the rest of
// the patch is answered, the pointer named with why; a patch that only
// moves pointers is an error saying so. The patch is git's own, from a
// real submodule moved beside a file.
func TestFixesLeaveSubmodulePointersAsLimits(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"a.go": "package a\n\nconst A = 1\n"}, "integration")
	fix := sm.Move(t, map[string]string{"a.go": "package a\n\nconst A = 2\n"})
	patch := git(t, sm.Dir, "diff", fix+"~1", fix)
	require.Contains(t, patch, "index ", "git's own patch")
	require.Contains(t, patch, " 160000\n", "the gitlink's mode")
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(sm.Dir, p)) }
	fixes, limits, err := Fixes(patch, func(p string) ([]byte, error) {
		b, err := read(p)
		if p == "a.go" {
			b = []byte("package a\n\nconst A = 1\n") // the base
		}
		return b, err
	})
	require.NoError(t, err)
	require.Equal(t, []Fix{{Path: "a.go", Action: work.ActionModify,
		Blocks: []Block{{Search: "package a\n\nconst A = 1\n", Replace: "package a\n\nconst A = 2\n"}}}}, fixes)
	require.Len(t, limits, 1)
	require.Equal(t, "integration", limits[0].Path)
	require.Contains(t, limits[0].String(), "integration: a git submodule's pointer (gitlink) moves; the bot cannot change")

	only := git(t, sm.Dir, "diff", fix+"~1", fix, "--", "integration")
	_, limits, err = Fixes(only, read)
	require.ErrorContains(t, err, "the gold patch changes nothing the bot can write: integration: a git submodule's pointer")
	require.Len(t, limits, 1)
	// Added and removed submodules are pointers too.
	added := git(t, sm.Dir, "diff", fix+"~2", fix+"~1")
	require.Contains(t, added, "new file mode 160000")
	fixes, limits, err = Fixes(added, read)
	require.NoError(t, err, "the .gitmodules file is written, the pointer is a limit")
	require.Equal(t, ".gitmodules", fixes[0].Path)
	require.Equal(t, "integration", limits[0].Path)
}

// What is not a file's text is a stated limit, from git's own patch: a new
// symbolic link, a mode-only change and a change of only the final
// newline are named, and the file beside them is answered.
func TestFixesLeaveLinksModesAndFinalNewlinesAsLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	base := map[string]string{"a.go": "package a\n\nconst A = 1\n", "run.sh": "#!/bin/sh\necho\n", "notes.txt": "no newline"}
	write(t, dir, base)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	write(t, dir, map[string]string{"a.go": "package a\n\nconst A = 2\n", "notes.txt": "no newline\n"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	require.NoError(t, os.Symlink("a.go", filepath.Join(dir, "link.go")))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "fix")
	patch := git(t, dir, "diff", "HEAD~1", "HEAD")
	require.Contains(t, patch, "new file mode 120000")
	require.Contains(t, patch, "new mode 100755")

	fixes, limits, err := Fixes(patch, func(p string) ([]byte, error) { return []byte(base[p]), nil })
	require.NoError(t, err)
	require.Len(t, fixes, 1)
	require.Equal(t, "a.go", fixes[0].Path)
	why := map[string]string{}
	for _, l := range limits {
		why[l.Path] = l.Why
	}
	require.Len(t, why, 3, "%v", limits)
	require.Contains(t, why["link.go"], "a symbolic link")
	require.Contains(t, why["run.sh"], "only the file's mode changes")
	require.Contains(t, why["notes.txt"], "only the newline at the end of the file changes")
}
