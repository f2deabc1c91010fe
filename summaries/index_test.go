package summaries_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
)

// writeTree writes files (path → content) under a new temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return dir
}

// countingSource is a real Workspace that counts file reads, so a test can
// check how many files a refresh touched.
type countingSource struct {
	*repo.Workspace
	reads atomic.Int64
}

func (c *countingSource) ReadBytes(p string) ([]byte, error) {
	c.reads.Add(1)
	return c.Workspace.ReadBytes(p)
}

func open(t *testing.T, dir string) *countingSource {
	t.Helper()
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return &countingSource{Workspace: ws}
}

// shopTree is a small mixed-language project with tests and docs.
var shopTree = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"cart/cart.go": "// Package cart holds shopping carts.\npackage cart\n\nimport \"example.com/shop/price\"\n\n" +
		"// Cart is a list of items.\ntype Cart struct{ Items []int }\n\n" +
		"// Total sums the items with the discount.\nfunc (c *Cart) Total() int { return price.Discount(len(c.Items)) }\n",
	"cart/cart_test.go": "package cart\n\nimport \"testing\"\n\n" +
		"func TestTotal(t *testing.T) { c := Cart{}; _ = c.Total(); _ = c.Total(); _ = c.Total() }\n",
	"price/price.go":  "package price\n\n// Discount applies the discount rate.\nfunc Discount(n int) int { return n * 9 / 10 }\n",
	"app/__init__.py": "",
	"app/models.py": "\"\"\"Order records and coupons.\"\"\"\n\n\nclass Order:\n    def apply_coupon(self, code):\n" +
		"        if code.expired:\n            raise ValueError(\"coupon expired\")\n        return code\n",
	"app/views.py": "from .models import Order\nfrom app import util\n\n\ndef checkout(request):\n" +
		"    order = Order()\n    return order.apply_coupon(request.code)\n",
	"app/util.py": "def money(x):\n    return round(x, 2)\n",
	"tests/test_models.py": "from app.models import Order\n\n\ndef test_apply_coupon():\n" +
		"    Order().apply_coupon(None)  # apply_coupon apply_coupon apply_coupon coupon coupon\n",
	"docs/guide.md":    "# Coupons\n\nUse apply_coupon to apply a coupon. apply_coupon checks the coupon. Coupon coupon coupon.\n",
	"web/src/index.ts": "import { fmt } from './fmt';\nexport function show(n: number) { return fmt(n); }\n",
	"web/src/fmt.ts":   "export function fmt(n: number): string { return n.toFixed(2); }\n",
}

func TestImportGraph(t *testing.T) {
	t.Parallel()
	src := open(t, writeTree(t, shopTree))
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"price/price.go"}, idx.Imports("cart/cart.go"))
	assert.ElementsMatch(t, []string{"cart/cart.go"}, idx.ImportedBy("price/price.go"))
	assert.ElementsMatch(t, []string{"app/models.py", "app/util.py"}, idx.Imports("app/views.py"))
	assert.ElementsMatch(t, []string{"app/views.py", "tests/test_models.py"}, idx.ImportedBy("app/models.py"))
	assert.Equal(t, []string{"web/src/fmt.ts"}, idx.Imports("web/src/index.ts"))
	assert.Empty(t, idx.Imports("app/util.py"))
}

func TestSearchSignals(t *testing.T) {
	t.Parallel()
	src := open(t, writeTree(t, shopTree))
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	tests := []struct {
		name, issue string
		want        string // expected first hit
		below       []string
		reason      string
	}{
		{"identifier written as code", "Calling `apply_coupon` with an old coupon breaks checkout",
			"app/models.py", []string{"tests/test_models.py", "docs/guide.md"}, "defines apply_coupon"},
		{"stack trace, innermost frame first", "Checkout crashes:\n\nTraceback (most recent call last):\n" +
			"  File \"/srv/site-packages/app/views.py\", line 7, in checkout\n" +
			"  File \"/srv/site-packages/app/models.py\", line 6, in apply_coupon\nValueError: coupon expired\n",
			"app/models.py", []string{"app/views.py"}, "innermost stack-trace frame in the tree"},
		{"file named in the issue", "Rounding is wrong in web/src/fmt.ts for negative numbers",
			"web/src/fmt.ts", []string{"web/src/index.ts"}, "named in the issue: web/src/fmt.ts"},
		{"tests rank below the code they test", "Cart Total is wrong",
			"cart/cart.go", []string{"cart/cart_test.go"}, ""},
		{"package named by import path", "Since v2 the example.com/shop/price package rounds down",
			"price/price.go", []string{"cart/cart.go"}, "in a folder named in the issue: example.com/shop/price"},
		{"error message found verbatim", "I get \"ValueError: coupon expired\" for valid codes",
			"app/models.py", nil, `contains "coupon expired"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := idx.Search(tt.issue, 10)
			require.NotEmpty(t, hits)
			assert.Equal(t, tt.want, hits[0].Path, "ranking: %v", paths(hits))
			for _, b := range tt.below {
				assert.Less(t, rank(hits, tt.want), rank(hits, b), "%s should rank below %s: %v", b, tt.want, paths(hits))
			}
			if tt.reason != "" {
				assert.Contains(t, strings.Join(hits[0].Reasons, "\n"), tt.reason)
			}
		})
	}
	hits := idx.Search("apply_coupon", 1)
	require.Len(t, hits, 1)
	assert.Equal(t, "Order records and coupons.", hits[0].Summary)
	assert.Equal(t, []string{"L5-8 def apply_coupon(self, code)"}, hits[0].Symbols)
	assert.Empty(t, idx.Search("zzzqqq nothing matches", 5))
}

// rank is the position of p in hits, or len(hits) when absent.
func rank(hits []summaries.Hit, p string) int {
	for i, h := range hits {
		if h.Path == p {
			return i
		}
	}
	return len(hits)
}

func paths(hits []summaries.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearchLiftsImportNeighbours(t *testing.T) {
	t.Parallel()
	src := open(t, writeTree(t, shopTree))
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	hits := idx.Search("`Cart` total discount rate", 5)
	require.NotEmpty(t, hits)
	assert.Equal(t, "cart/cart.go", hits[0].Path)
	i := rank(hits, "price/price.go")
	require.Less(t, i, len(hits), "price.go missing: %v", paths(hits))
	assert.Contains(t, strings.Join(hits[i].Reasons, ";"), "imports or imported by a strong hit")
}

func TestRefreshReadsOnlyChangedFiles(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, shopTree)
	src := open(t, dir)
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(len(shopTree)), src.reads.Load())
	first := idx.File("app/util.py")
	require.NotNil(t, first)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "app/util.py"),
		[]byte("def money(x):\n    return round(x, 2)\n\n\ndef refund_voucher(x):\n    return -x\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "docs/guide.md")))
	src.reads.Store(0)
	st, err := idx.Refresh(t.Context(), src)
	require.NoError(t, err)
	assert.Equal(t, int64(1), src.reads.Load(), "a one-file change must read one file")
	assert.Equal(t, 1, st.Parsed)
	assert.Equal(t, 1, st.Removed)
	assert.Equal(t, len(shopTree)-1, st.Files)
	assert.NotEqual(t, first.Blob, idx.File("app/util.py").Blob)
	assert.Nil(t, idx.File("docs/guide.md"))
	hits := idx.Search("`refund_voucher`", 1)
	require.Len(t, hits, 1)
	assert.Equal(t, "app/util.py", hits[0].Path)

	src.reads.Store(0)
	st, err = idx.Refresh(t.Context(), src)
	require.NoError(t, err)
	assert.Zero(t, src.reads.Load())
	assert.Zero(t, st.Parsed)
}

func TestBlobHashMatchesGit(t *testing.T) {
	t.Parallel()
	// `printf 'hello\n' | git hash-object --stdin`
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", summaries.BlobHash([]byte("hello\n")))
	assert.Equal(t, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", summaries.BlobHash(nil))
}

var smallTree = map[string]string{
	"app/models.py": "class Order:\n    def apply_coupon(self, code):\n        return code\n",
	"app/views.py":  "from .models import Order\n\n\ndef checkout(request):\n    return Order()\n",
	"README.md":     "# Shop\n",
}

func TestModelSummariesAreCachedByBlob(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "cache.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	_, err = st.Migrate(ctx)
	require.NoError(t, err)

	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/summarize.yaml"))
	client, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	src := open(t, writeTree(t, smallTree))
	idx, err := summaries.Build(ctx, src, summaries.Options{Model: client, Cache: st})
	require.NoError(t, err)
	stats := idx.LastStats()
	assert.Equal(t, 2, stats.Summarised)
	assert.Zero(t, stats.CacheHits)
	assert.Equal(t, 205, stats.Tokens.Total())
	assert.True(t, idx.ModelSummaries())
	assert.Equal(t, "Order model with coupon handling.", idx.Summary("app/models.py"))
	assert.Equal(t, "HTTP views that render orders.", idx.Summary("app/views.py"))
	assert.Equal(t, "Shop", idx.Summary("README.md"), "non-code files keep their outline summary")

	// A second build of the same blobs asks the model nothing: a server
	// with an empty script fails the test on any request.
	quiet := llmtest.NewServer(t, llmtest.Script{})
	client2, err := llm.NewClient(quiet.Config())
	require.NoError(t, err)
	idx2, err := summaries.Build(ctx, open(t, writeTree(t, smallTree)), summaries.Options{Model: client2, Cache: st})
	require.NoError(t, err)
	assert.Equal(t, 2, idx2.LastStats().CacheHits)
	assert.Zero(t, idx2.LastStats().Summarised)
	assert.Equal(t, "Order model with coupon handling.", idx2.Summary("app/models.py"))
	// the summary's words are searchable: nothing else in views.py says HTTP
	hits := idx2.Search("HTTP rendering", 1)
	require.Len(t, hits, 1)
	assert.Equal(t, "app/views.py", hits[0].Path)
	got, ok, err := st.GetSummary(ctx, summaries.BlobHash([]byte(smallTree["app/views.py"])))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "HTTP views that render orders.", got)
}

func TestOutlineOnlyWithoutModel(t *testing.T) {
	t.Parallel()
	src := open(t, writeTree(t, shopTree))
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	assert.False(t, idx.ModelSummaries())
	assert.Equal(t, "Package cart holds shopping carts.", idx.Summary("cart/cart.go"))
	assert.Equal(t, "defines function money", idx.Summary("app/util.py"))
	assert.Empty(t, idx.Summary("no/such/file.go"))
}

func TestSearchOwnTree(t *testing.T) {
	t.Parallel()
	src := open(t, "..")
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	require.Greater(t, len(idx.Files()), 50)
	hits := idx.Search("The git blob hash computed by `BlobHash` differs from `git hash-object`", 3)
	require.NotEmpty(t, hits)
	assert.Equal(t, "summaries/index.go", hits[0].Path)
	o := idx.File("summaries/outline.go").Outline
	require.NotNil(t, o)
	assert.Contains(t, o.Render(), "func OutlineOf(path string, src []byte) (*Outline, error)")
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	s, err := summaries.ParseSchedule("*/15 * * * *")
	require.NoError(t, err)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, time.Date(2026, 1, 2, 3, 15, 0, 0, time.UTC), s.Next(at))
	assert.Equal(t, "*/15 * * * *", s.String())
	_, err = summaries.ParseSchedule("every tuesday")
	assert.ErrorContains(t, err, `parse refresh schedule "every tuesday"`)

	dir := writeTree(t, smallTree)
	src := open(t, dir)
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app/new.py"), []byte("def fresh():\n    pass\n"), 0o644))
	every, err := summaries.ParseSchedule("@every 1s")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var got summaries.Stats
	err = idx.RefreshOn(ctx, every, src, func(st summaries.Stats, err error) {
		require.NoError(t, err)
		got = st
		cancel()
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, got.Parsed)
	assert.NotNil(t, idx.File("app/new.py"))
}

func TestSearchPhrasesCountOncePerFile(t *testing.T) {
	t.Parallel()
	src := open(t, writeTree(t, map[string]string{
		"cli/help.py":  "HELP = 'usage: shop --verbose'  # shop --verbose prints more\n",
		"cli/flags.py": "def add(parser):\n    parser.add_option('--verbose')\n",
	}))
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	hits := idx.Search("`shop --verbose` prints nothing", 2)
	require.Len(t, hits, 2)
	for _, h := range hits {
		n := 0
		for _, r := range h.Reasons {
			if strings.HasPrefix(r, "contains ") {
				n++
			}
		}
		assert.Equal(t, 1, n, "%s: %v", h.Path, h.Reasons)
	}
}
