package edit

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineCase is one case of testdata/lines.jsonl.gz (editbench's case format).
type lineCase struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Before string `json:"before"`
	After  string `json:"after"`
	Edit   string `json:"edit"`
	Expect string `json:"expect"`
}

// TestLinesHistory applies the line-range cases cut from real commits by
// testdata/linecases.py (ideal ranges in any order, quotes with read_file's
// number prefixes; ranges off by one, stale reads, overlaps, miscounted
// ends): none may be applied wrongly, and at least 99% of each kind must
// come out right.
func TestLinesHistory(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "lines.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	total, correct := map[string]int{}, map[string]int{}
	for sc.Scan() {
		var c lineCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		full := filepath.Join(dir, filepath.FromSlash(c.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c.Before), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Apply(dir, c.Edit, Options{Path: c.Path, Format: FormatLines})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		got, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		total[c.Expect]++
		switch {
		case c.Expect == "apply" && rep.OK() && string(got) == c.After,
			c.Expect == "refuse" && !rep.OK() && string(got) == c.Before:
			correct[c.Expect]++
		case rep.OK() || string(got) != c.Before:
			t.Errorf("WRONG %s: ok=%v\n%s", c.ID, rep.OK(), rep.Feedback())
		case strings.Contains(c.ID, ":P"):
			t.Logf("refused %s:\n%s", c.ID, rep.Feedback())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"apply", "refuse"} {
		if total[k] == 0 || correct[k]*100 < total[k]*99 {
			t.Errorf("%s: %d of %d correct, want at least 99%%", k, correct[k], total[k])
		}
		t.Logf("%s: %d of %d correct", k, correct[k], total[k])
	}
}

// TestLinesMalformed: a tag without a usable range or evidence is refused
// as malformed, a cut-off one as incomplete; nothing is written.
func TestLinesMalformed(t *testing.T) {
	for name, text := range map[string]string{
		"no start":    "<replace-lines filePath=\"a.txt\" end=\"2\">\n------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n</replace-lines>\n",
		"end before":  "<replace-lines filePath=\"a.txt\" start=\"3\" end=\"2\">\n------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n</replace-lines>\n",
		"no evidence": "<replace-lines filePath=\"a.txt\" start=\"2\" end=\"2\">\nB\n</replace-lines>\n",
		"two blocks":  "<replace-lines filePath=\"a.txt\" start=\"2\" end=\"2\">\n------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n------- SEARCH\nc\n=======\nC\n+++++++ REPLACE\n</replace-lines>\n",
		"unclosed":    "<remove-lines filePath=\"a.txt\" start=\"2\" end=\"2\">\nb\n",
		"lazy marker": "<replace-lines filePath=\"a.txt\" start=\"2\" end=\"2\">\n------- SEARCH\nb\n=======\n// ... existing code ...\nB\n+++++++ REPLACE\n</replace-lines>\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(p, []byte("a\nb\nc\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Apply(dir, text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || len(rep.Blocks) != 1 {
				t.Fatalf("want one refused block:\n%s", rep.Feedback())
			}
			if r := rep.Blocks[0].Reason; r != ReasonMalformed && r != ReasonIncomplete {
				t.Errorf("reason %q, want malformed or incomplete:\n%s", r, rep.Feedback())
			}
			if got, _ := os.ReadFile(p); string(got) != "a\nb\nc\n" {
				t.Errorf("file changed: %q", got)
			}
		})
	}
}
