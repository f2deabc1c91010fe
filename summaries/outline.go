package summaries

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ErrBinary is returned for content that is not text (a NUL byte in the
// first 8 KiB); such files get no outline.
var ErrBinary = errors.New("binary file")

// Outline sources: which parser produced an outline.
const (
	SourceTreeSitter = "tree-sitter"
	SourceCtags      = "ctags"
	SourcePlain      = "plain"
)

// Symbol is one definition in a file: a type, function, method, class and so
// on, with its 1-based inclusive line range and a one-line signature.
// Children holds members (methods of a class, items of an impl block).
type Symbol struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Signature string   `json:"signature,omitempty"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Children  []Symbol `json:"children,omitempty"`
}

// Outline is the structure of one file: its definitions and imports, and
// which parser produced them (tree-sitter, ctags or plain).
type Outline struct {
	Path     string   `json:"path"`
	Language Language `json:"language,omitempty"`
	// Source says which parser produced Symbols: SourceTreeSitter,
	// SourceCtags or SourcePlain.
	Source  string   `json:"source"`
	Lines   int      `json:"lines"`
	Symbols []Symbol `json:"symbols,omitempty"`
	// Imports are the module specifiers the file imports, as written
	// (Go import paths, Python dotted modules with leading dots for relative
	// imports, JS/TS specifiers).
	Imports []string `json:"imports,omitempty"`
	// SyntaxErrors counts ERROR and MISSING nodes (tree-sitter only).
	SyntaxErrors int `json:"syntax_errors,omitempty"`
}

// OutlineOf parses src (the content of the file at path) and returns its
// outline. Files with a tree-sitter grammar get a tree-sitter outline; others
// use universal-ctags when it is installed, else a line-based heuristic. The
// Source field says which was used. It returns ErrBinary for binary content.
// It is safe for concurrent use.
func OutlineOf(path string, src []byte) (*Outline, error) {
	if isBinary(src) {
		return nil, fmt.Errorf("outline %s: %w", path, ErrBinary)
	}
	o := &Outline{Path: path, Language: LanguageOf(path), Lines: countLines(src)}
	o.Imports = ImportsOf(path, src)
	if o.Language != LangOther {
		syms, nerr, err := treeSitterOutline(o.Language, src)
		if err != nil {
			return nil, fmt.Errorf("outline %s: %w", path, err)
		}
		o.Source, o.Symbols, o.SyntaxErrors = SourceTreeSitter, syms, nerr
		return o, nil
	}
	// ctags costs a process per file: only for code without a grammar.
	if !IsCode(path) {
		o.Source, o.Symbols = SourcePlain, plainOutline(path, src)
		return o, nil
	}
	if syms, ok := ctagsOutline(path, src); ok {
		o.Source, o.Symbols = SourceCtags, syms
		return o, nil
	}
	o.Source, o.Symbols = SourcePlain, plainOutline(path, src)
	return o, nil
}

// Render returns the outline as the explorer's preview_file text: a header
// line with path, language, line count and parser, the imports, then one
// line per symbol ("L12-40  func (s *Server) Run(ctx context.Context) error"),
// members indented under their container.
func (o *Outline) Render() string {
	var b strings.Builder
	lang := string(o.Language)
	if lang == "" {
		lang = "text"
	}
	fmt.Fprintf(&b, "%s (%s, %d lines, outline by %s)\n", o.Path, lang, o.Lines, o.Source)
	if len(o.Imports) > 0 {
		imps := o.Imports
		more := ""
		if len(imps) > 20 {
			more = fmt.Sprintf(" … and %d more", len(imps)-20)
			imps = imps[:20]
		}
		fmt.Fprintf(&b, "imports: %s%s\n", strings.Join(imps, ", "), more)
	}
	if o.SyntaxErrors > 0 {
		fmt.Fprintf(&b, "syntax errors: %d\n", o.SyntaxErrors)
	}
	if len(o.Symbols) == 0 {
		b.WriteString("(no definitions found)\n")
	}
	renderSymbols(&b, o.Symbols, 0)
	return b.String()
}

func renderSymbols(b *strings.Builder, syms []Symbol, depth int) {
	for _, s := range syms {
		rng := fmt.Sprintf("L%d-%d", s.StartLine, s.EndLine)
		text := s.Signature
		if text == "" {
			text = s.Kind + " " + s.Name
		}
		fmt.Fprintf(b, "%s%-11s %s\n", strings.Repeat("  ", depth), rng, text)
		renderSymbols(b, s.Children, depth+1)
	}
}

// Names returns every symbol name in the outline, members included.
func (o *Outline) Names() []string {
	var out []string
	var walk func([]Symbol)
	walk = func(ss []Symbol) {
		for _, s := range ss {
			out = append(out, s.Name)
			walk(s.Children)
		}
	}
	walk(o.Symbols)
	return out
}

func isBinary(src []byte) bool {
	head := src
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
}

func countLines(src []byte) int {
	if len(src) == 0 {
		return 0
	}
	n := bytes.Count(src, []byte{'\n'})
	if src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// oneLine collapses whitespace runs to one space and caps the length, for
// signatures.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
