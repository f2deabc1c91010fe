package edit

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// section is one "-- name --" part of a case file.
type section struct {
	name, body string
}

// parseArchive splits a case file into sections. Lines before the first
// section header are comments.
func parseArchive(data string) []section {
	var out []section
	var cur *section
	for _, l := range strings.SplitAfter(data, "\n") {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			out = append(out, section{name: t[3 : len(t)-3]})
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil {
			cur.body += l
		}
	}
	return out
}

// goldenCase is a case file: initial files, the edit, options and the
// outcome the test asserts on its own (the golden file records the rest).
type goldenCase struct {
	files    map[string]string
	edit     string
	opts     Options
	ok       bool
	statuses []Status
	reasons  []Reason
}

func loadCase(t *testing.T, path string) goldenCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := goldenCase{files: map[string]string{}, ok: true}
	for _, s := range parseArchive(string(data)) {
		switch {
		case strings.HasPrefix(s.name, "file "):
			c.files[strings.TrimPrefix(s.name, "file ")] = s.body
		case s.name == "edit":
			c.edit = s.body
		case s.name == "opts":
			for _, kv := range strings.Fields(s.body) {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "path":
					c.opts.Path = v
				case "format":
					c.opts.Format = Format(v)
				case "partial":
					c.opts.Partial = true
				case "blocked":
					c.opts.Blocked = func(p string) bool { return p == v }
				default:
					t.Fatalf("unknown option %q", k)
				}
			}
		case s.name == "expect":
			for _, line := range strings.Split(strings.TrimSpace(s.body), "\n") {
				k, v, _ := strings.Cut(line, "=")
				switch k {
				case "ok":
					c.ok, _ = strconv.ParseBool(v)
				case "status":
					for _, x := range strings.Split(v, ",") {
						c.statuses = append(c.statuses, Status(x))
					}
				case "reason":
					for _, x := range strings.Split(v, ",") {
						c.reasons = append(c.reasons, Reason(x))
					}
				}
			}
		default:
			t.Fatalf("unknown section %q", s.name)
		}
	}
	return c
}

// snapshotTree renders every file under dir (sorted) as an archive.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "-- file %s --\n%s", p, data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteString("\n-- (no final newline) --\n")
		}
	}
	return b.String()
}

// writeTree creates the files of a case under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGolden applies every testdata/cases/*.txt edit and compares the
// resulting tree and the feedback with testdata/golden (go test -update
// rewrites them). Each case also states the statuses, reasons and overall
// result it must produce, checked independently of the golden file.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := loadCase(t, path)
			dir := t.TempDir()
			writeTree(t, dir, c.files)
			before := snapshotTree(t, dir)
			rep, err := Apply(dir, c.edit, c.opts)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if rep.OK() != c.ok {
				t.Errorf("OK() = %v, want %v\n%s", rep.OK(), c.ok, rep.Feedback())
			}
			var statuses []Status
			var reasons []Reason
			for _, b := range rep.Blocks {
				statuses = append(statuses, b.Status)
				reasons = append(reasons, b.Reason)
			}
			if c.statuses != nil {
				if d := cmp.Diff(c.statuses, statuses); d != "" {
					t.Errorf("statuses (-want +got):\n%s\n%s", d, rep.Feedback())
				}
			}
			if c.reasons != nil {
				if d := cmp.Diff(c.reasons, reasons); d != "" {
					t.Errorf("reasons (-want +got):\n%s", d)
				}
			}
			after := snapshotTree(t, dir)
			if !rep.Written && after != before {
				t.Errorf("report says nothing was written but the tree changed")
			}
			got := after + "-- feedback --\n" + rep.Feedback()
			golden := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden file (run go test -update): %v", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("golden mismatch (-want +got):\n%s", d)
			}
		})
	}
}
