package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFileRe finds the Go files a text names: "held.go", "cmd/bot/replay.go",
// "parse_*.go".
var goFileRe = regexp.MustCompile(`[A-Za-z0-9_.*/-]*[A-Za-z0-9_*]\.go\b`)

// exists reports whether name (a glob) names a file under one of dirs.
func exists(root string, dirs []string, name string) bool {
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(root, d, name)); len(m) > 0 {
			return true
		}
	}
	return false
}

// TestDocGoNamesFilesThatExist: every Go file a package's doc.go names
// outside its code examples is there — in the package (or the package it
// belongs to, for a subpackage naming its parent's file), or at the path
// from the module's root.
func TestDocGoNamesFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.Name() != "doc.go" {
			return nil
		}
		docs++
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "//\t") {
				continue // an example's code, not a claim
			}
			for _, name := range goFileRe.FindAllString(line, -1) {
				if !exists(root, []string{pkg, filepath.Dir(pkg), "."}, name) {
					t.Errorf("%s/doc.go names %s, which does not exist", pkg, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 40 {
		t.Fatalf("found %d doc.go files; the walk is broken", docs)
	}
}

// TestContributingNamesFilesThatExist: every Go file CONTRIBUTING.md names
// is there; in the tree, a bare name belongs to the package whose entry it
// stands in (or one of its subfolders, such as testdata/).
func TestContributingNamesFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := "."
	for n, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && line[0] != ' ' && strings.Contains(f[0], "/") {
			pkg = f[0][:strings.LastIndex(f[0], "/")] // a tree entry: "server/   the wired App ...", "cmd/bot/e2e*  ..."
		} else if line == "" || strings.HasPrefix(line, "#") {
			pkg = "."
		}
		for _, name := range goFileRe.FindAllString(line, -1) {
			dirs := []string{".", pkg, filepath.Join(pkg, "*"), filepath.Join(pkg, "*", "*")}
			if !exists(root, dirs, name) {
				t.Errorf("CONTRIBUTING.md:%d names %s (under %s/), which does not exist", n+1, name, pkg)
			}
		}
	}
}
