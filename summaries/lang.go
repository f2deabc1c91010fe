package summaries

import (
	"path"
	"regexp"
	"strings"
)

// Language names a source language as this package spells it.
type Language string

// Languages with a tree-sitter grammar, plus Other for everything else.
const (
	LangGo         Language = "go"
	LangPython     Language = "python"
	LangJavaScript Language = "javascript"
	LangTypeScript Language = "typescript"
	LangTSX        Language = "tsx"
	LangJava       Language = "java"
	LangRust       Language = "rust"
	LangC          Language = "c"
	LangCPP        Language = "cpp"
	LangOther      Language = ""
)

var extLang = map[string]Language{
	".go": LangGo,
	".py": LangPython, ".pyi": LangPython,
	".js": LangJavaScript, ".jsx": LangJavaScript, ".mjs": LangJavaScript, ".cjs": LangJavaScript,
	".ts": LangTypeScript, ".mts": LangTypeScript, ".cts": LangTypeScript,
	".tsx":  LangTSX,
	".java": LangJava,
	".rs":   LangRust,
	".c":    LangC, ".h": LangC,
	".cc": LangCPP, ".cpp": LangCPP, ".cxx": LangCPP, ".hpp": LangCPP, ".hh": LangCPP, ".hxx": LangCPP,
}

// LanguageOf returns the language of a file by its extension, LangOther when
// no grammar covers it.
func LanguageOf(p string) Language {
	return extLang[strings.ToLower(path.Ext(p))]
}

// codeExt lists extensions of program source in languages without a grammar
// here; they are still code to search (ctags or the plain outline covers them).
var codeExt = map[string]bool{
	".kt": true, ".kts": true, ".scala": true, ".rb": true, ".cs": true, ".php": true, ".swift": true,
	".m": true, ".mm": true, ".lua": true, ".pl": true, ".pm": true, ".r": true, ".jl": true,
	".ex": true, ".exs": true, ".erl": true, ".clj": true, ".dart": true, ".vue": true,
	".svelte": true, ".sh": true, ".bash": true, ".pyx": true, ".zig": true, ".hs": true, ".ml": true,
	".groovy": true, ".fs": true,
}

// IsCode reports whether p names program source (any language), as opposed
// to documentation, data or configuration.
func IsCode(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return extLang[ext] != "" || codeExt[ext]
}

var testDirs = map[string]bool{
	"test": true, "tests": true, "testing": true, "testdata": true, "__tests__": true,
	"fixtures": true, "spec": true, "specs": true, "e2e": true,
}

// IsTest reports whether p looks like a test, fixture or test-data file by
// the conventions of the common ecosystems (tests/ folders, test_x.py,
// x_test.go, conftest.py, x.test.ts, XTest.java).
func IsTest(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if testDirs[strings.ToLower(d)] {
			return true
		}
	}
	base := parts[len(parts)-1]
	lb := strings.ToLower(base)
	stem := strings.TrimSuffix(lb, path.Ext(lb))
	switch {
	case lb == "conftest.py":
		return true
	case strings.HasPrefix(lb, "test_") && strings.HasSuffix(lb, ".py"):
		return true
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_tests"):
		return true
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	case strings.HasSuffix(path.Ext(base), "java") && (strings.HasSuffix(stem, "test") || strings.HasSuffix(stem, "tests")):
		return strings.HasSuffix(strings.TrimSuffix(base, path.Ext(base)), "Test") ||
			strings.HasSuffix(strings.TrimSuffix(base, path.Ext(base)), "Tests")
	}
	return false
}

// vendored reports whether p lies in third-party code copied into the tree.
func vendored(p string) bool {
	parts := strings.Split(p, "/")
	for i, d := range parts[:len(parts)-1] {
		switch d {
		case "vendor", "node_modules", "third_party", "thirdparty", "3rdparty", ".git", "_vendor", "vendored", "extern":
			return true
		case "packages":
			// a Python package's own packages/ folder holds copies of
			// other projects (requests.packages.urllib3); a top-level
			// packages/ is a monorepo's own code
			if i > 0 && strings.HasSuffix(p, ".py") {
				return true
			}
		}
	}
	return false
}

var auxDirs = map[string]bool{
	"doc": true, "docs": true, "example": true, "examples": true, "demo": true, "demos": true,
	"bench": true, "benchmark": true, "benchmarks": true, "sample": true, "samples": true,
}

// auxiliary reports code that illustrates a project rather than being part
// of it: documentation, example, demo and benchmark folders.
func auxiliary(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if auxDirs[strings.ToLower(d)] {
			return true
		}
	}
	return false
}

// generatedRe is Go's marker of generated code ("^// Code generated .* DO
// NOT EDIT\.$") and the "@generated" tag other tools write.
var generatedRe = regexp.MustCompile(`(?m)^(?://|#|/\*|\*|--)?\s*(?:Code generated .* DO NOT EDIT\.?|.*@generated\b)`)

// isGenerated reports whether the head of a file (its first 2 KiB) says a
// tool wrote it.
func isGenerated(data []byte) bool {
	return generatedRe.Match(data[:min(len(data), 2048)])
}

var mockDirs = map[string]bool{"mock": true, "mocks": true, "fakes": true, "mockgen": true}

// isMock reports test doubles (mocks/ folders, mock_x.go, x_mock.go,
// fake_x.go): they follow the code they imitate.
func isMock(p string) bool {
	parts := strings.Split(strings.ToLower(p), "/")
	for _, d := range parts[:len(parts)-1] {
		if mockDirs[d] {
			return true
		}
	}
	base := parts[len(parts)-1]
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasPrefix(stem, "mock_") || strings.HasSuffix(stem, "_mock") || strings.HasPrefix(stem, "fake_") ||
		strings.HasSuffix(stem, "_fake") || strings.HasSuffix(stem, "_mocks")
}

var migrationDirs = map[string]bool{"migration": true, "migrations": true, "migrate": true}

// isMigration reports a database migration: a dated, applied step that a
// fix adds to rather than edits.
func isMigration(p string) bool {
	parts := strings.Split(strings.ToLower(p), "/")
	for _, d := range parts[:len(parts)-1] {
		if migrationDirs[d] {
			return true
		}
	}
	return false
}
