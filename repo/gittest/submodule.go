package gittest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/issuesmith/issuesmith/internal/tb"
)

// Submodule is a local repository (the superproject) whose folder Path is a
// git submodule: a second local repository, Library, added with `git
// submodule add` and committed. Everything is made with the git CLI under
// the test's temporary folders.
type Submodule struct {
	Dir     string // the superproject's checkout, the submodule checked out in it
	Path    string // the submodule's folder, relative to Dir
	Library string // the submodule's own repository
}

// NewSubmodule makes a superproject on main whose first commit holds files
// (path → content) and whose second adds the submodule at path (Library has
// one commit with lib.txt).
func NewSubmodule(t tb.TB, files map[string]string, path string) *Submodule {
	t.Helper()
	s := &Submodule{Dir: t.TempDir(), Path: path, Library: t.TempDir()}
	git(t, s.Library, "init", "--quiet", "--initial-branch=main")
	writeFiles(t, s.Library, map[string]string{"lib.txt": "library 1\n"})
	git(t, s.Library, "add", "-A")
	git(t, s.Library, "commit", "--quiet", "-m", "library 1")
	git(t, s.Dir, "init", "--quiet", "--initial-branch=main")
	writeFiles(t, s.Dir, files)
	git(t, s.Dir, "add", "-A")
	git(t, s.Dir, "commit", "--quiet", "--allow-empty", "-m", "base")
	// A local path is a "file" transport, which git refuses for submodules
	// unless allowed (CVE-2022-39253).
	git(t, s.Dir, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", s.Library, path)
	git(t, s.Dir, "commit", "--quiet", "-m", "add the submodule "+path)
	return s
}

// Move commits a new version of Library, points the submodule at it and
// commits that in the superproject together with files (path → content);
// it returns the superproject's new commit.
func (s *Submodule) Move(t tb.TB, files map[string]string) string {
	t.Helper()
	lib := filepath.Join(s.Library, "lib.txt")
	old, err := os.ReadFile(lib)
	if err != nil {
		t.Fatalf("gittest: %v", err)
	}
	writeFiles(t, s.Library, map[string]string{"lib.txt": string(old) + "library, next\n"})
	git(t, s.Library, "commit", "--quiet", "-am", "library next")
	sub := filepath.Join(s.Dir, filepath.FromSlash(s.Path))
	git(t, sub, "-c", "protocol.file.allow=always", "pull", "--quiet", "--ff-only", "origin", "main")
	writeFiles(t, s.Dir, files)
	git(t, s.Dir, "add", "-A")
	git(t, s.Dir, "commit", "--quiet", "-m", "move the submodule "+s.Path)
	return strings.TrimSpace(git(t, s.Dir, "rev-parse", "HEAD"))
}

// Clone clones the superproject into a new temporary folder the way the bot
// does (no --recurse-submodules): the submodule's folder is there but
// empty, its gitlink in the index.
func (s *Submodule) Clone(t tb.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	git(t, "", "clone", "--quiet", s.Dir, dir)
	return dir
}

func writeFiles(t tb.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatalf("gittest: %v", err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatalf("gittest: %v", err)
		}
	}
}
