package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/summaries"
)

// searchTree writes a small real checkout for search and summarize.
func searchTree(t *testing.T) string {
	t.Helper()
	return writeTree(t, map[string]string{
		"README.md":            "# shop\n",
		"shop/cart.py":         "\"\"\"Shopping carts.\"\"\"\n\n\nclass Cart:\n    def total(self):\n        return 0\n",
		"shop/coupons.py":      "from .cart import Cart\n\n\ndef apply_coupon(cart, code):\n    raise ValueError(\"coupon expired\")\n",
		"tests/test_coupon.py": "from shop.coupons import apply_coupon\n\n\ndef test_apply_coupon():\n    apply_coupon(None, 1)\n",
	})
}

func runCmd(t *testing.T, args []string, stdin string, environ []string) (string, string, error) {
	t.Helper()
	root := &cobra.Command{Use: "bot", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newSearchCmd(), newSummarizeCmdWith(func() []string { return environ }))
	if len(args) > 0 && args[0] == "search" && !slices.Contains(args, "--index-cache") {
		args = append(args, "--index-cache", t.TempDir()) // never the user's cache
	}
	return execCmd(t, root, stdin, args...)
}

func TestSearchCommandJSON(t *testing.T) {
	dir := searchTree(t)
	out, _, err := runCmd(t, []string{"search", "--repo", dir, "--issue", "-", "--k", "2", "--json"},
		"`apply_coupon` says the coupon expired\n", nil)
	require.NoError(t, err)
	var doc searchOutput
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Files, 2)
	assert.Equal(t, "shop/coupons.py", doc.Files[0].Path)
	assert.Equal(t, "outline-only", doc.Summaries)
	assert.Equal(t, 4, doc.Indexed)
	assert.Contains(t, doc.Files[0].Symbols[0], "def apply_coupon(cart, code)")
}

func TestSearchCommandText(t *testing.T) {
	dir := searchTree(t)
	issue := filepath.Join(t.TempDir(), "issue.md")
	require.NoError(t, os.WriteFile(issue, []byte("Cart total is wrong"), 0o644))
	out, _, err := runCmd(t, []string{"search", "--repo", dir, "--issue", issue}, "", nil)
	require.NoError(t, err)
	assert.Contains(t, out, "# 4 files indexed, summaries: outline-only")
	assert.Contains(t, out, " 1. shop/cart.py")
	assert.Contains(t, out, "    Shopping carts.")
}

func TestSearchCommandUsage(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no repo", []string{"search", "--issue", "-"}, "x", "search needs --repo DIR"},
		{"bad k", []string{"search", "--repo", ".", "--issue", "-", "--k", "0"}, "x", "--k must be positive"},
		{"empty issue", []string{"search", "--repo", ".", "--issue", "-"}, "  \n", "the issue text is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.args, tt.stdin, nil)
			var ee *exitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 2, ee.code)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, _, err := runCmd(t, []string{"search", "--repo", filepath.Join(t.TempDir(), "missing"), "--issue", "-"}, "x", nil)
	assert.ErrorContains(t, err, "not a directory")
}

func TestSummarizeWithoutModel(t *testing.T) {
	dir := searchTree(t)
	db := filepath.Join(t.TempDir(), "s.db")
	out, stderr, err := runCmd(t, []string{"summarize", "--repo", dir, "--database", db}, "", nil)
	require.NoError(t, err)
	assert.Contains(t, out, "4 files (4 parsed, 0 removed); 0 summarised by the model, 0 cache hits; tokens 0")
	assert.Contains(t, out, "no model configured: outline-only summaries")
	assert.Contains(t, out, "outlines: 3 by tree-sitter, 0 by ctags, 1 by the plain line fallback")
	assert.NotContains(t, stderr, "\r", "no progress bar when stderr is not a terminal")
}

// --json prints what summarize made: every file with its summary, outline
// and resolved imports, and the build's counts, as one JSON document.
func TestSummarizeJSON(t *testing.T) {
	dir := searchTree(t)
	out, _, err := runCmd(t, []string{"summarize", "--repo", dir, "--database", filepath.Join(t.TempDir(), "s.db"), "--json"}, "", nil)
	require.NoError(t, err)
	var doc summaries.Export
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.False(t, doc.ModelSummaries)
	assert.Equal(t, 4, doc.Stats.Files)
	require.Len(t, doc.Files, 4)
	var coupons summaries.ExportFile
	for _, f := range doc.Files {
		if f.Path == "shop/coupons.py" {
			coupons = f
		}
	}
	assert.Equal(t, []string{"shop/cart.py"}, coupons.Imports)
	require.NotNil(t, coupons.Outline)
	assert.Equal(t, "apply_coupon", coupons.Outline.Symbols[0].Name)
	assert.NotEmpty(t, coupons.Summary)
	assert.Len(t, coupons.Blob, 40)
}

func TestSummarizeWithModelThenCache(t *testing.T) {
	dir := searchTree(t)
	db := filepath.Join(t.TempDir(), "s.db")
	srv := llmtest.NewServer(t, llmtest.Unordered(
		llmtest.Reply("Cart type and totals.").WithUsage(50, 5, 0).
			When(llmtest.Expect{Role: "summarizer", Last: "File: shop/cart.py"}),
		llmtest.Reply("Coupon application.").WithUsage(60, 4, 0).
			When(llmtest.Expect{Role: "summarizer", Last: "File: shop/coupons.py"}),
		llmtest.Reply("Coupon tests.").WithUsage(40, 3, 0).
			When(llmtest.Expect{Role: "summarizer", Last: "File: tests/test_coupon.py"}),
	))
	env := []string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=scripted", "ISSUESMITH_MODEL_MAX_RETRIES=0"}
	out, _, err := runCmd(t, []string{"summarize", "--repo", dir, "--database", db}, "", env)
	require.NoError(t, err)
	assert.Contains(t, out, "4 files (4 parsed, 0 removed); 3 summarised by the model, 0 cache hits; tokens 162 (prompt 150, completion 12); model summaries")

	// Same blobs again: every summary comes from the database, no request.
	quiet := llmtest.NewServer(t, llmtest.Script{})
	env2 := []string{"ISSUESMITH_MODEL_BASE_URL=" + quiet.URL(), "ISSUESMITH_MODEL_NAME=scripted"}
	out, _, err = runCmd(t, []string{"summarize", "--repo", dir, "--database", db}, "", env2)
	require.NoError(t, err)
	assert.Contains(t, out, "0 summarised by the model, 3 cache hits; tokens 0")
}

// A checkout that does not exist is reported before the summary database is
// created: a typo in --repo leaves no stray database behind.
func TestSummarizeMissingRepoCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "summaries.db")
	_, _, err := runCmd(t, []string{"summarize", "--repo", filepath.Join(t.TempDir(), "nope"), "--database", db, "--no-model"}, "", nil)
	require.ErrorContains(t, err, "not a directory")
	require.NoFileExists(t, db)
}

// An issue file kept inside the checkout is not one of its hits: it would
// match its own words best and push a real file out of the top k.
func TestSearchSkipsTheIssueFileInsideTheCheckout(t *testing.T) {
	t.Parallel()
	dir := searchTree(t)
	issue := filepath.Join(dir, "notes", "issue.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(issue), 0o755))
	require.NoError(t, os.WriteFile(issue, []byte("`apply_coupon` says the coupon expired\n"), 0o644))
	out, _, err := runCmd(t, []string{"search", "--repo", dir, "--issue", issue, "--k", "2", "--json"}, "", nil)
	require.NoError(t, err)
	var doc searchOutput
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Files, 2)
	for _, h := range doc.Files {
		assert.NotEqual(t, "notes/issue.md", h.Path)
	}
	assert.Equal(t, "shop/coupons.py", doc.Files[0].Path)
}

func TestSearchExplainAndPersistentIndex(t *testing.T) {
	dir := searchTree(t)
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"README.md", "shop/cart.py", "shop/coupons.py", "tests/test_coupon.py"} {
		require.NoError(t, os.Chtimes(filepath.Join(dir, p), old, old))
	}
	cache := t.TempDir()
	args := []string{"search", "--repo", dir, "--issue", "-", "--k", "3", "--explain", "--index-cache", cache}
	first, _, err := runCmd(t, args, "`apply_coupon` says the coupon expired\n", nil)
	require.NoError(t, err)
	assert.Contains(t, first, " 1. shop/coupons.py")
	assert.Contains(t, first, "    + words of the issue")
	assert.Contains(t, first, "    + defines apply_coupon (+")
	assert.Contains(t, first, "    + test file (x0.30)")
	snaps, err := filepath.Glob(filepath.Join(cache, "*.gob"))
	require.NoError(t, err)
	require.Len(t, snaps, 1, "the index is kept in the cache folder")
	st, err := os.Stat(snaps[0])
	require.NoError(t, err)

	second, _, err := runCmd(t, args, "`apply_coupon` says the coupon expired\n", nil)
	require.NoError(t, err)
	assert.Equal(t, first, second, "the kept index ranks as a fresh build")
	st2, err := os.Stat(snaps[0])
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime(), "nothing changed: the snapshot is not written again")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "shop/refunds.py"), []byte("def refund_voucher(x):\n    return -x\n"), 0o644))
	third, _, err := runCmd(t, []string{"search", "--repo", dir, "--issue", "-", "--index-cache", cache}, "`refund_voucher`", nil)
	require.NoError(t, err)
	assert.Contains(t, third, "# 5 files indexed")
	assert.Contains(t, third, " 1. shop/refunds.py", "a new file is indexed on the next query")

	_, _, err = runCmd(t, []string{"search", "--repo", dir, "--issue", "-", "--index-cache", "off"}, "refund", nil)
	require.NoError(t, err)
}

func TestSearchCacheDir(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/x", searchCacheDir("/x", nil))
	assert.Empty(t, searchCacheDir("off", nil))
	if base, err := os.UserCacheDir(); err == nil {
		assert.Equal(t, filepath.Join(base, "issuesmith", "search"), searchCacheDir("", []string{searchCacheEnv + "="}))
	}
	assert.Empty(t, searchCacheDir("", []string{searchCacheEnv + "=off"}))
	assert.Equal(t, "/y", searchCacheDir("", []string{searchCacheEnv + "=/y"}))
	assert.Equal(t, "/z", searchCacheDir("/z", []string{searchCacheEnv + "=/y"}), "the flag wins")
}

// The progress bar draws only on a terminal: a pipe or log file gets no
// carriage-return redraws.
func TestProgressBarOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	bar := newProgressBar(&buf)
	bar.update("parse", 1, 2)
	bar.update("parse", 2, 2)
	bar.done()
	require.Empty(t, buf.String())
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer f.Close()
	bar = newProgressBar(f)
	bar.update("parse", 2, 2)
	bar.done()
	data, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.Empty(t, data, "a file is not a terminal")
}
