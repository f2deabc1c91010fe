package preagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/summaries"
)

// TestNamedFiles: the paths, path:line references, stack frames and
// backticked symbols of an issue are resolved against the repository
// (exact path, path suffix, symbol definition); resolved files are
// previewed with their outline and the named lines; ambiguous and missing
// names are listed as such and not opened.
func TestNamedFiles(t *testing.T) {
	t.Parallel()
	dir := copyTree(t, "testdata/platforms")
	// A second types.ts makes "types.ts" ambiguous.
	if err := os.WriteFile(filepath.Join(dir, "src/app/types.ts"), []byte("export type Row = { id: string };\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := openWS(t, dir)
	ix, err := summaries.Build(t.Context(), ws, summaries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	is := Issue{Title: "platformById crashes", Body: "Calling `platformById` with an unknown id throws:\n\n" +
		"```\nTypeError: x is undefined\n    at platformById (/home/ci/build/src/data/platform.ts:12:3)\n```\n\n" +
		"See openai.ts and types.ts, and maybe src/data/google.ts. Docs: https://example.com/src/a.ts"}
	s := &session{e: &Explorer{ws: ws, idx: ix}, issue: is.Clean()}
	got := s.namedFiles(t.Context())
	for _, want := range []string{
		"`/home/ci/build/src/data/platform.ts:12`, `platformById` → src/data/platform.ts", // a frame with a foreign prefix, and a symbol
		"<outline path=\"src/data/platform.ts\">",
		">   11\texport function platformById",                 // the symbol's line, marked
		">   12\t  return platforms[id];\n    13\t}\n</lines>", // the frame's line; one merged window, ending at the file's end
		"`openai.ts` → src/data/openai.ts",                     // a path suffix
		"`types.ts` → src/app/types.ts, src/data/types.ts",
		"Not in the repository: `src/data/google.ts`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "src/a.ts") || strings.Contains(got, "<outline path=\"src/app/types.ts\"") {
		t.Errorf("a URL or an ambiguous file was opened:\n%s", got)
	}
	s.opts.NoNamedFiles = true
	if s.namedFiles(t.Context()) != "" {
		t.Errorf("NoNamedFiles left the section in")
	}
}
