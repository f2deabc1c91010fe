package workflow

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// renderImports are what the rendering files (render_*.go) may import:
// text, the pure helpers of the bot's GitHub text and go-humanize's number
// formatting; store only for the run's values (store.Run and its states),
// never a call into it.
var renderImports = []string{"fmt", "regexp", "slices", "strings", "unicode/utf8", "github.com/dustin/go-humanize",
	"github.com/issuesmith/issuesmith/internal/clip", "github.com/issuesmith/issuesmith/internal/fence",
	"github.com/issuesmith/issuesmith/internal/ghtext", "github.com/issuesmith/issuesmith/workflow/lifecycle",
	"github.com/issuesmith/issuesmith/work"}

// The comments' Markdown (render_*.go: progress comment, PR body, CI
// comment, review replies, spec and plan comments fitted to GitHub's cap)
// is rendered by pure functions of the run's values: no method, no
// session or engine, no GitHub, no store call, so the stages decide and
// post while the rendering only writes text.
func TestRenderFilesArePure(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("render_*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(renderImports, path) {
				t.Errorf("%s imports %s: rendering imports only %v", name, path, renderImports)
			}
		}
		ast.Inspect(f, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.FuncDecl:
				if x.Recv != nil {
					t.Errorf("%s: %s is a method; rendering is plain functions", name, x.Name.Name)
				}
			case *ast.Ident:
				if x.Name == "session" || x.Name == "Engine" {
					t.Errorf("%s: %s names %s; rendering works on values, not the stage's state", name, fset.Position(x.Pos()), x.Name)
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "store" {
						t.Errorf("%s: %s calls store.%s", name, fset.Position(x.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	if n < 5 {
		t.Fatalf("found %d rendering files, want the 5 of render_*.go", n)
	}
}
