package coder

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/coder/edit"
)

// benchCase is the part of an editbench case this measurement reads.
type benchCase struct {
	ID, Path, Format, Perturbation, Expect, Before, After, Edit string
}

// TestEditbenchApplyModelExposure is a measurement, not a gate: with
// ISSUESMITH_EDITBENCH pointing at editbench's cases.jsonl.gz it applies
// every case with the engine (atomic, as bot apply does) and, for each
// refused lazy or SEARCH block, asks where the apply-model fallback would
// send it: the region it would locate (or why none), per format and
// expectation. For blocks of cases that must be refused, it also plays an
// obedient apply model (its rewrite is the block's REPLACE, in the
// located region) through the acceptance checks, to count the stale edits
// the checks would let through.
func TestEditbenchApplyModelExposure(t *testing.T) {
	corpus := os.Getenv("ISSUESMITH_EDITBENCH")
	if corpus == "" {
		t.Skip("set ISSUESMITH_EDITBENCH to editbench's cases.jsonl.gz to measure")
	}
	cases := readBench(t, corpus)
	counts := map[string]int{}
	for _, c := range cases {
		for _, k := range exposure(t, c) {
			counts[k]++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%-70s %5d\n", k, counts[k])
	}
	t.Logf("editbench apply-model exposure (%d cases):\n%s", len(cases), b.String())
}

func readBench(t *testing.T, path string) []benchCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []benchCase
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c benchCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// exposure applies one case and classifies its refused blocks.
func exposure(t *testing.T, c benchCase) []string {
	dir := t.TempDir()
	full := filepath.Join(dir, filepath.FromSlash(c.Path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(c.Before), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := edit.Apply(dir, c.Edit, edit.Options{Path: c.Path})
	if err != nil {
		t.Fatal(err)
	}
	cell := c.Format + " apply"
	if c.Expect == "refuse" {
		cell = c.Format + " " + c.Perturbation + " refuse"
	}
	out := []string{cell + ": cases"}
	if rep.OK() {
		return append(out, cell+": applied")
	}
	out = append(out, cell+": refused")
	edits, err := edit.Parse(c.Edit, edit.ParseOptions{Path: c.Path})
	if err != nil || len(edits) != len(rep.Blocks) {
		return append(out, cell+": blocks not parsed alike")
	}
	sent, kept, refused := 0, 0, 0
	for i, br := range rep.Blocks {
		if br.Status != edit.StatusRefused {
			continue
		}
		refused++
		e := edits[i]
		if (e.Op != edit.OpReplace && e.Op != edit.OpLazy) || (br.Reason != edit.ReasonNotFound && br.Reason != edit.ReasonAmbiguous) {
			out = append(out, cell+": block not eligible ("+string(br.Reason)+")")
			continue
		}
		reg, ok, why := locateRegion(c.Path, []byte(c.Before), e, br)
		if !ok {
			out = append(out, cell+": block, no region: "+strings.SplitN(why, " (", 2)[0])
			continue
		}
		sent++
		route := "nearest text"
		if strings.HasPrefix(reg.How, "the enclosing") {
			route = "enclosing function"
		}
		out = append(out, cell+": block sent to the apply model ("+route+")")
		if c.Expect == "refuse" && e.Op == edit.OpReplace {
			verdict := obedient(c, e, reg)
			if strings.HasPrefix(verdict, "KEPT") {
				kept++
				t.Logf("kept: %s lines %d–%d (%s)", c.ID, reg.Start, reg.End, reg.How)
			}
			out = append(out, cell+": obedient rewrite "+verdict)
		}
	}
	if sent > 0 {
		out = append(out, cell+": CASES with a block sent to the apply model")
	}
	if kept > 0 && kept == refused {
		out = append(out, cell+": CASES an obedient apply model turns into a wrong edit")
	}
	return out
}

// obedient plays an apply model that does what the stale block says: the
// region becomes the block's REPLACE (re-indented by nothing). It returns
// whether the acceptance checks keep that rewrite.
func obedient(c benchCase, e edit.Edit, reg applyRegion) string {
	lines := cutLines([]byte(c.Before))
	after := spliceRegion(lines, reg, joinLines(e.Replace))
	if why := checkRewrite(c.Path, []byte(c.Before), after, reg); why != "" {
		return "refused by the region checks"
	}
	if why := staleBlock(e, []byte(c.Before), after, reg); why != "" {
		return "refused by the stale-block check"
	}
	nb, _ := syntaxErrors(c.Path, []byte(c.Before))
	if na, ok := syntaxErrors(c.Path, after); ok && na > nb {
		return "refused by the syntax guard"
	}
	return "KEPT (a wrong edit)"
}
