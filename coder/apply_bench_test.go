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
			out = append(out, cell+": block, no region: "+strings.SplitN(strings.SplitN(why, " (", 2)[0], " \"", 2)[0])
			continue
		}
		if why := sketchFits(e, cutLines([]byte(c.Before))[reg.Start-1:reg.End].text()); why != "" {
			out = append(out, cell+": block, region found but the sketch does not fit it")
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

// TestEditbenchApplyModelOracle is a measurement, not a gate: editbench's
// lazy sketches that must apply (F5 P0) get their first anchor line
// misremembered (one identifier changed, the way a model misquotes), which
// the lazy merge refuses; then the fallback's region is located and an
// oracle apply model (its rewrite is the commit's own version of the
// region) goes through the acceptance checks. It counts how many such
// refused sketches a perfect apply model could rescue, and why not.
func TestEditbenchApplyModelOracle(t *testing.T) {
	corpus := os.Getenv("ISSUESMITH_EDITBENCH")
	if corpus == "" {
		t.Skip("set ISSUESMITH_EDITBENCH to editbench's cases.jsonl.gz to measure")
	}
	counts := map[string]int{}
	for _, c := range readBench(t, corpus) {
		if c.Format != "F5" || c.Perturbation != "P0" {
			continue
		}
		counts[oracleRescue(t, c)]++
		counts["cases"]++
	}
	t.Logf("editbench F5 P0 with a misremembered anchor, oracle apply model: %v", counts)
}

// misremember changes the first identifier of 3+ letters of the sketch's
// first anchor line (a trailing "s" toggled), or reports false.
func misremember(edit string, anchor string) (string, bool) {
	for _, w := range strings.FieldsFunc(anchor, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if len(w) < 3 || strings.Contains("func def return class var const type", w) {
			continue
		}
		changed := strings.Replace(anchor, w, w+"s", 1)
		if i := strings.Index(edit, anchor); i >= 0 {
			return edit[:i] + changed + edit[i+len(anchor):], true
		}
	}
	return "", false
}

func oracleRescue(t *testing.T, c benchCase) string {
	edits, err := edit.Parse(c.Edit, edit.ParseOptions{Path: c.Path})
	if err != nil || len(edits) == 0 {
		return "not parsed"
	}
	anchors := edit.SketchAnchors(edits[0].Replace)
	if len(anchors) == 0 {
		return "no anchor"
	}
	c.Edit, _ = misremember(c.Edit, anchors[0])
	if c.Edit == "" {
		return "no identifier to misremember"
	}
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
	if rep.OK() {
		return "merge still applies"
	}
	edits, _ = edit.Parse(c.Edit, edit.ParseOptions{Path: c.Path})
	if len(edits) != 1 || len(rep.Blocks) != 1 {
		return "multi-block"
	}
	e, br := edits[0], rep.Blocks[0]
	reg, ok, _ := locateRegion(c.Path, []byte(c.Before), e, br)
	if !ok {
		return "no region"
	}
	lines := cutLines([]byte(c.Before))
	if why := sketchFits(e, lines[reg.Start-1:reg.End].text()); why != "" {
		if os.Getenv("ISSUESMITH_EDITBENCH_SHOW") != "" {
			t.Logf("%s: region %d–%d (%s): %s\n%s", c.ID, reg.Start, reg.End, reg.How, why, c.Edit)
		}
		return "sketch does not fit the region"
	}
	rs, re := 0, 0
	for i, l := range lines {
		if i < reg.Start-1 {
			rs += len(l)
		}
		if i < reg.End {
			re += len(l)
		}
	}
	tail := len(c.Before) - re
	if len(c.After) < rs+tail || c.Before[:rs] != c.After[:rs] || c.Before[re:] != c.After[len(c.After)-tail:] {
		return "the change reaches outside the region"
	}
	after := spliceRegion(lines, reg, c.After[rs:len(c.After)-tail])
	if string(after) != c.After {
		return "splice differs"
	}
	if why := checkRewrite(c.Path, []byte(c.Before), after, reg); why != "" {
		return "refused by the region checks: " + strings.SplitN(why, " (", 2)[0]
	}
	nb, _ := syntaxErrors(c.Path, []byte(c.Before))
	if na, ok := syntaxErrors(c.Path, after); ok && na > nb {
		return "refused by the syntax guard"
	}
	return "RESCUED"
}
