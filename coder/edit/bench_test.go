package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchBlocks builds 10 blocks of 3 lines spread over a 20,000-line file.
// mangle turns each SEARCH line into what the model wrote.
func benchBlocks(lines []string, mangle func(string) string) string {
	var b strings.Builder
	b.WriteString("<file-edit filePath=\"big.go\">\n")
	for i := 0; i < 10; i++ {
		at := 1000 + i*1900
		b.WriteString("------- SEARCH\n")
		for _, l := range lines[at : at+3] {
			b.WriteString(mangle(l) + "\n")
		}
		b.WriteString("=======\n")
		b.WriteString(mangle(lines[at]) + "\n\t// inserted\n" + mangle(lines[at+2]) + "\n")
		b.WriteString("+++++++ REPLACE\n")
	}
	b.WriteString("</file-edit>\n")
	return b.String()
}

// benchApply measures Apply on a fresh copy of the file each iteration
// (the copy is not timed).
func benchApply(b *testing.B, text, wantLevel string) {
	src, _ := bigFile(20000)
	dir := b.TempDir()
	path := filepath.Join(dir, "big.go")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.WriteFile(path, src, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := Apply(dir, text, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK() || rep.Blocks[9].Level != wantLevel {
			b.Fatalf("unexpected result (level %q):\n%s", rep.Blocks[9].Level, rep.Feedback())
		}
	}
}

// benchEngine measures the engine without the disk: parse the message,
// then place and splice every block on the loaded file.
func benchEngine(b *testing.B, text, wantLevel string) {
	raw, _ := bigFile(20000)
	src := string(raw) // as loadFile reads it
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := &workspace{files: map[string]*fileState{}}
		w.files["big.go"] = &fileState{path: "big.go", orig: src, existed: true, exists: true, doc: parseDoc(src)}
		edits, err := Parse(text, ParseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var last BlockResult
		for _, e := range edits {
			last, _ = w.apply(e)
		}
		if last.Status != StatusApplied || last.Level != wantLevel {
			b.Fatalf("unexpected result %+v", last)
		}
	}
}

// BenchmarkEngineExact: 10 exact blocks in a 20,000-line file, in memory
// (target < 2 ms).
func BenchmarkEngineExact(b *testing.B) {
	_, lines := bigFile(20000)
	benchEngine(b, benchBlocks(lines, func(s string) string { return s }), "exact")
}

// BenchmarkEngineFuzzyWorst: as BenchmarkEngineExact, but every block only
// matches at the last level (target < 50 ms).
func BenchmarkEngineFuzzyWorst(b *testing.B) {
	_, lines := bigFile(20000)
	benchEngine(b, benchBlocks(lines, fuzzyMangle), "unicode")
}

// BenchmarkApplyExact: the same through Apply, with the disk read and the
// atomic write.
func BenchmarkApplyExact(b *testing.B) {
	_, lines := bigFile(20000)
	benchApply(b, benchBlocks(lines, func(s string) string { return s }), "exact")
}

// fuzzyMangle writes a line the way a careless model might: indentation
// lost, smart quotes, extra spaces.
func fuzzyMangle(s string) string {
	s = strings.ReplaceAll(strings.TrimLeft(s, "\t"), "\"", "”")
	return "  " + strings.ReplaceAll(s, ", ", ",   ")
}

// BenchmarkApplyFuzzyWorst: 10 blocks that only match at the last level
// (smart quotes and odd spacing, wrong indentation), so every level scans
// the file first (target < 50 ms).
func BenchmarkApplyFuzzyWorst(b *testing.B) {
	_, lines := bigFile(20000)
	benchApply(b, benchBlocks(lines, fuzzyMangle), "unicode")
}

// BenchmarkRefuseNotFound: 10 stale blocks, each refused after the whole
// cascade, with the nearest-window feedback computed.
func BenchmarkRefuseNotFound(b *testing.B) {
	src, lines := bigFile(20000)
	text := benchBlocks(lines, func(s string) string { return strings.ReplaceAll(s, "compute", "kompute") })
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Apply(dir, text, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.OK() || rep.Blocks[0].Nearest == nil {
			b.Fatalf("want refusals with a nearest window:\n%s", rep.Feedback())
		}
	}
}
