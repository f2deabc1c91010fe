package coder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/issuesmith/issuesmith/summaries"
)

// syntaxErrors counts syntax errors in src: tree-sitter ERROR and MISSING
// nodes for the languages summaries parses, else 0 or 1 for JSON and YAML
// (valid or not). supported is false when nothing covers the file.
func syntaxErrors(p string, src []byte) (n int, supported bool) {
	if n, ok := summaries.SyntaxErrors(p, src); ok {
		return n, true
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".json":
		if json.Valid(src) {
			return 0, true
		}
		return 1, true
	case ".yml", ".yaml":
		var v any
		if err := yaml.Unmarshal(src, &v); err != nil {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// guard validates every file an attempt changed: an edit that adds syntax
// errors (tree-sitter count after > before) is rolled back to the snapshot
// taken before the attempt and explained; surviving Go files are gofmt-ed
// when they were gofmt-clean before (a file the repository keeps
// unformatted is not rewritten whole).
// It returns the rolled-back paths and the feedback text for the model.
func (s *session) guard(changed []string, snaps map[string]snapshot) (map[string]bool, string, error) {
	r := s.r
	rolled := map[string]bool{}
	var fb strings.Builder
	paths := append([]string(nil), changed...)
	sort.Strings(paths)
	for _, p := range paths {
		p = cleanRel(p)
		before, ok := snaps[p]
		if !ok {
			continue // not a plan path: the engine refused it (Blocked)
		}
		after, err := r.tree.snap(p)
		if err != nil {
			return nil, "", err
		}
		if !after.exists {
			continue
		}
		nb := 0
		if before.exists {
			nb, _ = syntaxErrors(p, before.data)
		}
		na, supported := syntaxErrors(p, after.data)
		if supported && na > nb {
			if err := r.tree.restore(p, before); err != nil {
				return nil, "", err
			}
			rolled[p] = true
			why := fmt.Sprintf("the result has %d syntax error(s), the file had %d before", na, nb)
			if d := goSyntaxDetail(p, after.data); d != "" {
				why += " (" + d + ")"
			}
			fmt.Fprintf(&fb, "ROLLED BACK: every edit to %s in this answer was undone because %s. "+
				"None of this answer's blocks for %s is in the file now: send all of them again, fixed "+
				"(balanced brackets, complete statements).\n", p, why, p)
			s.notes = append(s.notes, fmt.Sprintf("attempt %d: edits to %s rolled back: %s", s.attempts, p, why))
			r.event(s.key, s.attempts, "rollback", "%s: %s", p, why)
			continue
		}
		if strings.HasSuffix(p, ".go") && (!before.exists || gofmtClean(before.data)) {
			if err := s.gofmt(p, after.data); err != nil {
				return nil, "", err
			}
		}
	}
	return rolled, fb.String(), nil
}

// gofmt formats a Go file in place when formatting changes it.
func (s *session) gofmt(p string, src []byte) error {
	out, err := formatGo(src)
	if err != nil || string(out) == string(src) {
		return nil // unparsable files are the syntax guard's business
	}
	if err := s.r.tree.write(p, out); err != nil {
		return err
	}
	s.r.event(s.key, s.attempts, "gofmt", "%s reformatted", p)
	return nil
}

// goSyntaxDetail returns the Go parser's first error ("line 12, column 3:
// expected '}'") for a Go file, to tell the model where the break is.
func goSyntaxDetail(p string, src []byte) string {
	if !strings.HasSuffix(p, ".go") {
		return ""
	}
	_, err := parser.ParseFile(token.NewFileSet(), p, src, parser.AllErrors)
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return ""
	}
	e := list[0]
	return fmt.Sprintf("line %d, column %d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

// formatGo is gofmt's output for src, with CRLF line endings when most of
// src's lines end so (gofmt writes LF): formatting a Windows-edited file
// must not rewrite every line of it.
func formatGo(src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, err
	}
	if crlf := bytes.Count(src, []byte("\r\n")); crlf > 0 && 2*crlf > bytes.Count(src, []byte("\n")) {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out, nil
}

// gofmtClean reports whether src is a Go file gofmt leaves as it is (an
// unparsable one counts as clean: the syntax guard judges it).
func gofmtClean(src []byte) bool {
	out, err := formatGo(src)
	return err != nil || string(out) == string(src)
}
