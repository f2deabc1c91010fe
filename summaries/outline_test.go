package summaries

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flat lists "kind name Lstart-end" for each symbol, members indented.
func flat(syms []Symbol, depth int) []string {
	var out []string
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%s%s %s L%03d-%03d", strings.Repeat(" ", depth), s.Kind, s.Name, s.StartLine, s.EndLine))
		out = append(out, flat(s.Children, depth+1)...)
	}
	return out
}

func TestOutlineTreeSitter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		lang Language
		want []string
	}{
		{"sample.go", LangGo, []string{"struct Server L009-011", "interface Handler L013-015",
			"method Run L017-019", "function New L021-021"}},
		{"sample.py", LangPython, []string{"class Foo L006-012", " method bar L008-010", " method baz L012-012",
			"function top L013-015"}},
		{"sample.js", LangJavaScript, []string{"class Widget L003-007", " method render L004-006",
			"function make L008-008", "function helper L009-009"}},
		{"sample.ts", LangTypeScript, []string{"interface Foo L003-003", " method a L003-003",
			"class Bar L004-008", " method constructor L006-006", " method get L007-007",
			"function handler L009-009", "function f L010-010", "type Alias L011-011", "enum E L012-012",
			"namespace NS L013-013", " function g L013-013"}},
		{"sample.tsx", LangTSX, []string{"function Button L002-004"}},
		{"Sample.java", LangJava, []string{"class A L002-008", " method A L004-004", " method main L005-005",
			" interface I L006-006", "  method m L006-006", " enum E L007-007", "  method f L007-007"}},
		{"sample.rs", LangRust, []string{"struct S L002-002", "impl S L003-003", " method new L003-003",
			"impl fmt::Display for S L004-004", " method fmt L004-004", "trait T L005-005", " method m L005-005",
			"module inner L006-006", " function x L006-006"}},
		{"sample.c", LangC, []string{"struct point L002-002", "function add L003-003", "function find L004-004"}},
		{"sample.cpp", LangCPP, []string{"namespace ns L002-009", " class Widget L003-007", "  method draw L006-006",
			" function maxof L008-008", "function Widget::size L010-010", "function make L011-011",
			"type pair_t L012-012"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join("testdata", "outline", tt.file))
			require.NoError(t, err)
			o, err := OutlineOf(tt.file, src)
			require.NoError(t, err)
			assert.Equal(t, tt.lang, o.Language)
			assert.Equal(t, SourceTreeSitter, o.Source)
			assert.Equal(t, tt.want, flat(o.Symbols, 0))
			assert.Zero(t, o.SyntaxErrors)
		})
	}
}

func TestOutlineRender(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/outline/sample.go")
	require.NoError(t, err)
	o, err := OutlineOf("pkg/sample.go", src)
	require.NoError(t, err)
	want := "pkg/sample.go (go, 21 lines, outline by tree-sitter)\n" +
		"imports: fmt, strings\n" +
		"L9-11       type Server struct\n" +
		"L13-15      type Handler interface\n" +
		"L17-19      func (s *Server) Run(n int) error\n" +
		"L21-21      func New() *Server\n"
	assert.Equal(t, want, o.Render())
}

func TestOutlineFallbacks(t *testing.T) {
	t.Parallel()
	md := []byte("# Title\n\nText.\n\n## Usage\nmore\n")
	o, err := OutlineOf("docs/README.md", md)
	require.NoError(t, err)
	assert.Equal(t, SourcePlain, o.Source)
	assert.Equal(t, []string{"heading Title L001-004", "heading Usage L005-006"}, flat(o.Symbols, 0))
	assert.Contains(t, o.Render(), "outline by plain")

	lua := []byte("local function helper(x)\n  return x\nend\n\nfunction M.run(y)\n  return helper(y)\nend\n")
	o, err = OutlineOf("lib/run.lua", lua)
	require.NoError(t, err)
	if _, lookErr := exec.LookPath("ctags"); lookErr == nil && o.Source == SourceCtags {
		assert.Equal(t, "helper", o.Symbols[0].Name)
		assert.Equal(t, 1, o.Symbols[0].StartLine)
	} else {
		// without universal-ctags the plain heuristic still finds both
		assert.Equal(t, SourcePlain, o.Source)
		assert.Equal(t, []string{"function helper L001-004", "function M.run L005-007"}, flat(o.Symbols, 0))
	}

	_, err = OutlineOf("img.png", []byte("\x89PNG\x00\x00"))
	assert.True(t, errors.Is(err, ErrBinary), "got %v", err)
}

func TestPlainOutline(t *testing.T) {
	t.Parallel()
	src := []byte("#!/bin/sh\nfunction build {\n  go build\n}\n\nclass Weird extends Thing\nend\n")
	got := flat(plainOutline("x.unknown", src), 0)
	assert.Equal(t, []string{"function build L002-005", "class Weird L006-007"}, got)
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, src string
		wantErr         bool
		supported       bool
	}{
		{"go ok", "a.go", "package a\nfunc f() {}\n", false, true},
		{"go broken", "a.go", "package a\nfunc f( {\n", true, true},
		{"python ok", "a.py", "def f():\n    return 1\n", false, true},
		{"python broken", "a.py", "def f(:\n    return (1\n", true, true},
		{"ts missing brace", "a.ts", "function f() { if (x) { return 1; }\n", true, true},
		{"rust ok", "a.rs", "fn main() { let x = 1; }\n", false, true},
		{"unsupported", "a.txt", "anything (", false, false},
		{"binary", "a.go", "\x00\x01", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, ok := SyntaxErrors(tt.path, []byte(tt.src))
			assert.Equal(t, tt.supported, ok)
			assert.Equal(t, tt.wantErr, n > 0, "errors: %d", n)
		})
	}
}

func TestImportsOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, src string
		want      []string
	}{
		{"a.go", "package a\nimport (\n\t\"fmt\"\n\tx \"example.com/m/pkg\"\n)\n", []string{"fmt", "example.com/m/pkg"}},
		{"a.py", "import os, sys as system\nfrom . import util\nfrom ..core.base import (\n    A,  # a\n    B,\n)\n" +
			"def f():\n    import json\n", []string{"os", "sys", ".", "..core.base", "json"}},
		{"a.ts", "import x from './x';\nimport type { T } from \"../types\";\nimport './side';\n" +
			"export * from './re';\nconst y = require('y');\nconst z = await import('./lazy');\n",
			[]string{"./x", "../types", "./side", "./re", "y", "./lazy"}},
		{"a.md", "import x from 'y'", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ImportsOf(tt.path, []byte(tt.src)), tt.path)
	}
}

func TestTerms(t *testing.T) {
	t.Parallel()
	// one-character words (v, 2) are dropped, as the baseline does
	assert.Equal(t, []string{"parsehttpresponse_v2", "parse", "http", "response"},
		Terms("parseHTTPResponse_v2"))
	assert.Equal(t, []string{"get_user", "get", "user", "x1"}, Terms("get_user(x) x1 0x1f"))
}

func TestLeadingDoc(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, src, want string }{
		{"a.py", "#!/usr/bin/env python\n\"\"\"Parse the config file. More text.\"\"\"\nimport os\n", "Parse the config file."},
		{"a.py", "# Copyright 2020 X\n# Licensed MIT\n\n\"\"\"\nRun jobs in the\nbackground.\n\"\"\"\n", "Run jobs in the background."},
		{"a.go", "// Copyright 2009 The Go Authors.\n\n// Package http provides HTTP client and server implementations.\npackage http\n", "Package http provides HTTP client and server implementations."},
		{"a.js", "/**\n * Render widgets on a canvas.\n */\nexport {}\n", "Render widgets on a canvas."},
		{"a.go", "package a\n", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, leadingDoc(tt.path, []byte(tt.src)), tt.src)
	}
}
