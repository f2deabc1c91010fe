package coder

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder/edit"
)

const threeFuncs = `package calc

// Add returns the sum.
func Add(x, y int) int {
	return x + y
}

// Report prints the totals of the ledger.
func Report(l *Ledger) {
	fmt.Println("opening balance:", l.Opening)
	fmt.Println("closing balance:", l.Closing)
	fmt.Println("transactions:", len(l.Entries))
}
`

// TestCheckRewrite: only a rewrite confined to the region, that does not
// re-create text found outside it, is kept.
func TestCheckRewrite(t *testing.T) {
	t.Parallel()
	reg := applyRegion{Start: 4, End: 6}
	before := []byte(threeFuncs)
	ok := strings.Replace(threeFuncs, "\treturn x + y\n", "\treturn y + x\n", 1)
	require.Empty(t, checkRewrite("calc.go", before, []byte(ok), reg))
	require.Equal(t, "the rewrite changes nothing", checkRewrite("calc.go", before, before, reg))
	outside := strings.Replace(ok, "package calc", "package calc2", 1)
	require.Equal(t, "the whole-file diff changes line 1, outside the region (lines 4–6)", checkRewrite("calc.go", before, []byte(outside), reg))
	copied := strings.Replace(threeFuncs, "\treturn x + y\n", "\tfmt.Println(\"opening balance:\", l.Opening)\n"+
		"\tfmt.Println(\"closing balance:\", l.Closing)\n\tfmt.Println(\"transactions:\", len(l.Entries))\n\treturn x + y\n", 1)
	require.Contains(t, checkRewrite("calc.go", before, []byte(copied), reg), "the rewrite copies lines the file has outside the region")
}

// TestLocateRegion: a stale SEARCH block's region is the engine's nearest
// text when it is close enough, else the function around it; a block that
// matches several places gets none.
func TestLocateRegion(t *testing.T) {
	t.Parallel()
	data := []byte(threeFuncs)
	stale := edit.Edit{Op: edit.OpReplace, Search: []string{
		`	fmt.Println("closing balance:", l.Closing)`, `	fmt.Println("transaction:", len(l.Entries))`}}
	reg, ok, why := locateRegion("calc.go", data, stale, edit.BlockResult{Reason: edit.ReasonNotFound})
	require.True(t, ok, why)
	require.Equal(t, 11, reg.Start)
	require.Equal(t, 12, reg.End)
	require.Contains(t, reg.How, "the nearest text")

	loose := edit.Edit{Op: edit.OpReplace, Search: []string{`	fmt.Printf("closing: %d\n", l.Closing)`, `	log.Print(l)`, `	return`}}
	reg, ok, why = locateRegion("calc.go", data, loose, edit.BlockResult{Reason: edit.ReasonNotFound})
	require.True(t, ok, why)
	require.Equal(t, applyRegion{Start: 9, End: 13, How: "the enclosing function Report"}, reg)

	sketch := edit.Edit{Op: edit.OpLazy, Replace: []string{"// ... existing code ...", "func Report(l *Ledgers) {",
		`	fmt.Println("opening:", l.Opening)`, "	// ... existing code ...", `	fmt.Println("transactions:", len(l.Entries))`, "}"}}
	reg, ok, why = locateRegion("calc.go", data, sketch, edit.BlockResult{Reason: edit.ReasonNotFound})
	require.True(t, ok, why)
	require.Equal(t, applyRegion{Start: 9, End: 13, How: "the sketch's anchors"}, reg)
	require.Empty(t, sketchFits(sketch, cutLines(data)[8:13].text()))
	require.Contains(t, sketchFits(sketch, cutLines(data)[2:6].text()), "has no look-alike in the region")

	_, ok, why = locateRegion("calc.go", data, stale, edit.BlockResult{Reason: edit.ReasonAmbiguous})
	require.False(t, ok)
	require.Contains(t, why, "several places")
}

// TestStaleBlock: the rewrite of a SEARCH block's region may change only
// what the block quotes, and may not bring back a line the block keeps that
// the file no longer has (editbench's stale N1 cases).
func TestStaleBlock(t *testing.T) {
	t.Parallel()
	reg := applyRegion{Start: 10, End: 12}
	before := []byte(threeFuncs)
	rewrite := func(lines ...string) []byte {
		return spliceRegion(cutLines(before), reg, strings.Join(lines, "\n")+"\n")
	}
	const opening, closing = `	fmt.Println("opening balance:", l.Opening)`, `	fmt.Println("closing balance:", l.Closing)`
	// The block misquotes the line it replaces (Closing for Opening):
	// rewriting the file's Opening line would drop text it never saw.
	misquoted := edit.Edit{Op: edit.OpReplace, Search: []string{`	fmt.Println("opening balance:", l.Closing)`, closing},
		Replace: []string{`	fmt.Println("opening:", l.Opening)`, closing}}
	require.Equal(t, `the rewrite removes the line "fmt.Println(\"opening balance:\", l.Opening)", which the block does not quote (as often)`,
		staleBlock(misquoted, before, rewrite(`	fmt.Println("opening:", l.Opening)`, closing, `	fmt.Println("transactions:", len(l.Entries))`), reg))
	// The block keeps a line the file does not have (a stale read).
	stale := edit.Edit{Op: edit.OpReplace, Search: []string{opening, `	fmt.Println("closing:", l.Closing)`},
		Replace: []string{`	fmt.Println("open:", l.Opening)`, `	fmt.Println("closing:", l.Closing)`}}
	require.Contains(t, staleBlock(stale, before, rewrite(`	fmt.Println("open:", l.Opening)`, `	fmt.Println("closing:", l.Closing)`,
		`	fmt.Println("transactions:", len(l.Entries))`), reg), `the block keeps the line "fmt.Println(\"closing:\", l.Closing)", which the region does not have (as often)`)
	// Quoted lines with other whitespace, replaced as the block says: kept.
	loose := edit.Edit{Op: edit.OpReplace, Search: []string{`fmt.Println("opening balance:",  l.Opening)`},
		Replace: []string{`fmt.Println("open:", l.Opening)`}}
	require.Empty(t, staleBlock(loose, before, rewrite(`	fmt.Println("open:", l.Opening)`, closing, `	fmt.Println("transactions:", len(l.Entries))`), reg))
}
