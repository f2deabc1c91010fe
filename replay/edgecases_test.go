package replay_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/replay"
)

// edgeCase is a fix as repositories write them that a line-based edit can
// trip over: line endings, a missing final newline, bytes that are not
// UTF-8, a space in a path, an empty file. The fix commit's test checks
// every changed file's bytes (trimmed of a final newline where loose).
type edgeCase struct {
	id    string
	base  map[string]string // files added at the base commit
	fix   map[string]string // files as the fix commit has them
	del   []string          // files the fix deletes
	loose []string          // files whose final newline the check ignores
	exec  []string          // files the fix makes executable
	limit string            // a stated limit the oracle names
}

// edgeTest is the fix commit's Go test for c.
func edgeTest(c edgeCase) string {
	var b strings.Builder
	b.WriteString("package calc\n\nimport (\n\t\"os\"\n\t\"strings\"\n\t\"testing\"\n)\n\n")
	b.WriteString("func want(t *testing.T, p, s string, loose bool) {\n\tb, err := os.ReadFile(p)\n\tgot := string(b)\n")
	b.WriteString("\tif loose {\n\t\tgot, s = strings.TrimSuffix(got, \"\\n\"), strings.TrimSuffix(s, \"\\n\")\n\t}\n")
	b.WriteString("\tif err != nil || got != s {\n\t\tt.Errorf(\"%s: %q, %v; want %q\", p, b, err, s)\n\t}\n}\n\n")
	b.WriteString("func TestEdge(t *testing.T) {\n")
	for _, p := range slices.Sorted(maps.Keys(c.fix)) {
		fmt.Fprintf(&b, "\twant(t, %q, %q, %v)\n", p, c.fix[p], slices.Contains(c.loose, p))
	}
	for _, p := range c.del {
		fmt.Fprintf(&b, "\tif _, err := os.Stat(%q); err == nil {\n\t\tt.Error(\"%s is still there\")\n\t}\n", p, p)
	}
	for _, p := range c.exec {
		fmt.Fprintf(&b, "\tif fi, err := os.Stat(%q); err != nil || fi.Mode()&0o111 == 0 {\n\t\tt.Error(\"%s is not executable\")\n\t}\n", p, p)
	}
	b.WriteString("}\n")
	return b.String()
}

// edgeInstance commits c's base and fix on top of the fixture's base.
func edgeInstance(t *testing.T, f *fixture, c edgeCase) replay.Instance {
	t.Helper()
	gitRun(t, f.repository, "checkout", "-q", f.base)
	writeFiles(t, f.repository, c.base)
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "base "+c.id)
	base := gitRun(t, f.repository, "rev-parse", "HEAD")
	writeFiles(t, f.repository, c.fix)
	for _, p := range c.del {
		require.NoError(t, os.Remove(filepath.Join(f.repository, p)))
	}
	for _, p := range c.exec {
		require.NoError(t, os.Chmod(filepath.Join(f.repository, p), 0o755))
	}
	writeFiles(t, f.repository, map[string]string{"edge_test.go": edgeTest(c)})
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "fix "+c.id)
	gold := append(slices.Sorted(maps.Keys(c.fix)), c.del...)
	in := f.instance
	in.ID, in.BaseCommit, in.FixCommit = "acme__calc-"+c.id, base, gitRun(t, f.repository, "rev-parse", "HEAD")
	in.GoldFiles, in.TestFiles = gold, []string{"edge_test.go"}
	in.FailToPass, in.PassToPass = []string{"TestEdge"}, []string{"TestOld"}
	in.ProblemStatement = "# The data files are out of date\n\nUpdate " + strings.Join(gold, ", ") + "."
	return in
}

// The oracle resolves, through the agents and the edit engine, fixes whose
// files have CRLF endings, no final newline, Latin-1 bytes (shown to the
// model as U+FFFD), a space or accent in the path, a 20 KB line, gofmt
// not applied, or are empty, or a new script that must be executable; a file whose only change is its final newline
// is a stated limit.
func TestOracleResolvesFilesLineEditsTripOver(t *testing.T) {
	long := strings.Repeat(`{"k":"v"},`, 2000) // a minified line of 20 KB
	cases := []edgeCase{
		{id: "crlf", base: map[string]string{"data/crlf.txt": "one\r\ntwo\r\nthree\r\n"},
			fix: map[string]string{"data/crlf.txt": "one\r\nTWO\r\nthree\r\n"}},
		{id: "crlf-go", base: map[string]string{"win.go": "package calc\r\n\r\nfunc Win() int {\r\n\treturn 1\r\n}\r\n"},
			fix: map[string]string{"win.go": "package calc\r\n\r\nfunc Win() int {\r\n\treturn 2\r\n}\r\n"}},
		{id: "no-final-newline", base: map[string]string{"data/n.txt": "alpha\nbeta\ngamma"},
			fix: map[string]string{"data/n.txt": "alpha\nbeta\nGAMMA"}},
		// The engine keeps a file's final-newline state: the gold's added
		// newline is not written, the changed and appended lines are.
		{id: "last-line", base: map[string]string{"data/l.txt": "alpha\nbeta", "data/m.txt": "one\ntwo"},
			fix:   map[string]string{"data/l.txt": "alpha\nBETA\n", "data/m.txt": "one\ntwo\nthree\n"},
			loose: []string{"data/l.txt", "data/m.txt"}},
		{id: "final-newline-only", base: map[string]string{"data/f.txt": "alpha\nbeta", "data/g.txt": "x\n"},
			fix:   map[string]string{"data/f.txt": "alpha\nbeta\n", "data/g.txt": "y\n"},
			loose: []string{"data/f.txt"}, limit: "data/f.txt: only the newline at the end of the file changes"},
		{id: "latin1", base: map[string]string{"data/latin1.txt": "caf\xe9\nna\xefve\nplain\n"},
			fix: map[string]string{"data/latin1.txt": "caf\xe9\nna\xefve\nPLAIN\n"}},
		{id: "space-and-accent", base: map[string]string{"docs/release notes.txt": "v1\n", "data/données.txt": "a\n"},
			fix: map[string]string{"docs/release notes.txt": "v2\n", "data/données.txt": "b\n"}},
		{id: "empty-files", base: map[string]string{"data/gone.txt": "content\n", "data/old.txt": "stale\n"},
			fix: map[string]string{"data/empty.txt": "", "data/gone.txt": ""}, del: []string{"data/old.txt"}},
		{id: "whitespace", base: map[string]string{"data/ws.txt": "a \n\tb\n  c\n\n\n\nd\n"},
			fix: map[string]string{"data/ws.txt": "a\n  b\n\tc\n\nd\n"}},
		// A Go file the repository keeps unformatted is not gofmt-ed whole.
		{id: "unformatted-go", base: map[string]string{"ugly.go": "package calc\n\nfunc Ugly() int { x:=1\n\treturn x }\n\nfunc Pretty() int {\n\treturn 1\n}\n"},
			fix: map[string]string{"ugly.go": "package calc\n\nfunc Ugly() int { x:=1\n\treturn x }\n\nfunc Pretty() int {\n\treturn 2\n}\n"}},
		{id: "nested-new", base: map[string]string{"data/x.txt": "x\n"},
			fix: map[string]string{"internal/deep/er/new.go": "package er\n\nconst X = 1\n"}},
		{id: "long-line", base: map[string]string{"data/min.json": "[" + long + "1]\n"},
			fix: map[string]string{"data/min.json": "[" + long + "2]\n"}},
		{id: "dotdir", base: map[string]string{".config/app.yml": "a: 1\n"},
			fix: map[string]string{".config/app.yml": "a: 2\n"}},
		{id: "generated", base: map[string]string{"gen.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage calc\n\nconst Gen = 1\n"},
			fix: map[string]string{"gen.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage calc\n\nconst Gen = 2\n"}},
		{id: "rename", base: map[string]string{"data/old-name.txt": "a\nb\nc\n"},
			fix: map[string]string{"data/new-name.txt": "a\nB\nc\n"}, del: []string{"data/old-name.txt"}},
		{id: "large-go", base: map[string]string{"big.go": bigGo(900, 1)}, // 2,700 lines: outline and regions
			fix: map[string]string{"big.go": bigGo(900, 2)}},
		{id: "new-script", base: map[string]string{"data/x.txt": "x\n"},
			fix: map[string]string{"scripts/gen.sh": "#!/bin/sh\necho generated\n"}, exec: []string{"scripts/gen.sh"}},
		{id: "makefile-tabs", base: map[string]string{"Makefile": "all:\n\tgo build ./...\n"},
			fix: map[string]string{"Makefile": "all:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n"}},
	}
	f := newFixture(t)
	var ins []replay.Instance
	for _, c := range cases {
		ins = append(ins, edgeInstance(t, f, c))
	}
	gold, err := f.runner(t, replay.Gold{}, 5*time.Minute).Run(t.Context(), ins)
	require.NoError(t, err)
	results, err := f.runner(t, replay.Oracle{}, 5*time.Minute).Run(t.Context(), ins)
	require.NoError(t, err)
	require.Len(t, results, len(cases))
	for i, res := range results {
		c := cases[i]
		assert.Equal(t, replay.StatusResolved, gold[i].Status, "%s: the instance itself: %s", c.id, gold[i].Reason)
		assert.Equal(t, replay.StatusResolved, res.Status, "%s: %s", c.id, res.Reason)
		if c.limit == "" {
			assert.Empty(t, res.Limits, c.id)
			continue
		}
		if assert.Len(t, res.Limits, 1, c.id) {
			assert.Contains(t, res.Limits[0], c.limit, c.id)
		}
	}
}

func bigGo(n, v int) string {
	var b strings.Builder
	b.WriteString("package calc\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func F%d() int { return %d }\n\n", i, i)
	}
	fmt.Fprintf(&b, "func Last() int {\n\treturn %d\n}\n", v)
	return b.String()
}
