package coder

import (
	"fmt"
	"strings"
	"testing"
)

func TestBuildViewSmallFileIsWhole(t *testing.T) {
	t.Parallel()
	src := "package a\n\nfunc A() {}\n"
	v := buildView("a.go", []byte(src), true, focus{}, 400)
	if !v.Whole || v.Content != src {
		t.Fatalf("small file not shown whole: %+v", v)
	}
}

func TestBuildViewLargeFileShowsRegionsAndNamesGaps(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&b, "func F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i)
	}
	b.WriteString("func ParseConfig(s string) error {\n\treturn nil\n}\n")
	src := b.String()
	v := buildView("big.go", []byte(src), true, focusOf("Make `ParseConfig` reject empty input"), 100)
	if v.Whole {
		t.Fatal("large file shown whole")
	}
	if !strings.Contains(v.Outline, "ParseConfig") {
		t.Fatalf("outline misses the symbol:\n%s", v.Outline)
	}
	if !strings.Contains(v.Content, "func ParseConfig(s string) error {") {
		t.Fatalf("the region the plan touches is missing:\n%s", v.Content)
	}
	if !strings.Contains(v.Content, "not shown …") || !strings.Contains(v.Content, "[lines ") {
		t.Fatalf("gaps are not named:\n%s", v.Content)
	}
	// Every line is either shown or inside a named gap.
	shown := 0
	for _, r := range v.Regions {
		shown += r.end - r.start + 1
	}
	if shown == 0 || shown > 100 {
		t.Fatalf("regions show %d lines, want 1..100", shown)
	}
}

func TestBuildViewFallsBackToHeadWhenNothingMatches(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("plain text line\n", 500)
	v := buildView("notes.txt", []byte(src), true, focusOf("NoSuchName"), 100)
	if v.Whole || len(v.Regions) != 1 || v.Regions[0].start != 1 {
		t.Fatalf("fallback regions = %+v", v.Regions)
	}
	if !strings.Contains(v.Content, fmt.Sprintf("… lines %d–500 not shown …", v.Regions[0].end+1)) {
		t.Fatalf("tail gap not named:\n%s", v.Content[len(v.Content)-200:])
	}
}

func TestFocusTerms(t *testing.T) {
	t.Parallel()
	got := focusTerms("Call `cfg.Load()` from Server.Run and parse_args; keep the loop")
	want := map[string]bool{"cfg.Load": true, "Server.Run": true, "parse_args": true}
	for _, g := range got {
		delete(want, g)
		if g == "keep" || g == "the" {
			t.Errorf("plain word %q taken as a term", g)
		}
	}
	if len(want) > 0 {
		t.Fatalf("missing terms %v in %v", want, got)
	}
}

func TestFence(t *testing.T) {
	t.Parallel()
	got := fenceText("a ```` b")
	if !strings.HasPrefix(got, "`````\n") || !strings.HasSuffix(got, "\n`````") {
		t.Fatalf("fence not longer than content's backticks: %q", got)
	}
}

func TestBuildViewPlainWordPicksSymbolOnly(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "// add to list %d\nfunc F%d() {}\n\n", i, i)
	}
	b.WriteString("func Platforms() []string {\n\treturn []string{\"openai\"}\n}\n")
	v := buildView("big.go", []byte(b.String()), true, focusOf("Add deepseek to the platforms list"), 100)
	if len(v.Regions) != 1 || !strings.Contains(v.Content, "func Platforms() []string {") {
		t.Fatalf("regions %+v:\n%s", v.Regions, v.Content)
	}
}

func TestItemPromptForMissingFile(t *testing.T) {
	t.Parallel()
	p, err := loadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	for _, action := range []string{"add", "modify"} {
		out, err := render(p.item, itemPrompt{Topic: "t", Path: "new.go", Action: action, Steps: []string{"x"},
			View: buildView("new.go", nil, false, focus{}, 100)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "does not exist yet") || strings.Contains(out, "is large") {
			t.Errorf("%s of a missing file:\n%s", action, out)
		}
	}
}

func TestSyntaxErrorsJSONAndYAML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, src string
		n         int
		supported bool
	}{
		{"package.json", `{"name": "x"}`, 0, true},
		{"package.json", `{"name": "x",}`, 1, true},
		{"ci.yml", "a: 1\nb: [1, 2]\n", 0, true},
		{"ci.yaml", "a: [1, 2\n", 1, true},
		{"main.go", "package main\nfunc main() {\n", 1, true},
		{"notes.txt", "anything {", 0, false},
	}
	for _, tt := range tests {
		n, ok := syntaxErrors(tt.path, []byte(tt.src))
		if (n > 0) != (tt.n > 0) || ok != tt.supported {
			t.Errorf("syntaxErrors(%s, %q) = %d, %v; want %d, %v", tt.path, tt.src, n, ok, tt.n, tt.supported)
		}
	}
}
