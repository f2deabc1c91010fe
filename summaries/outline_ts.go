package summaries

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// grammar describes how one language's syntax tree maps to symbols.
type grammar struct {
	lang *ts.Language
	// defs maps a node kind to the symbol kind it defines.
	defs map[string]string
	// containers are symbol kinds whose body holds member definitions.
	containers map[string]bool
	// through are node kinds walked as if their children were siblings
	// (export wrappers, decorators, declaration lists, class bodies).
	through map[string]bool
}

var (
	grammarsOnce sync.Once
	grammars     map[Language]*grammar
	// parserPools keeps parsers per language: a tree-sitter parser is a C
	// object that is costly to create and must be closed, so a bounded pool
	// is used instead of sync.Pool (which would drop them unclosed).
	parserPools map[Language]chan *ts.Parser
)

func m(kv ...string) map[string]string {
	out := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func set(ks ...string) map[string]bool {
	out := make(map[string]bool, len(ks))
	for _, k := range ks {
		out[k] = true
	}
	return out
}

func loadGrammars() {
	useCAllocator()
	jsDefs := []string{"class_declaration", "class", "function_declaration", "function",
		"generator_function_declaration", "function", "method_definition", "method",
		"variable_declarator", "function"}
	tsDefs := append(append([]string{}, jsDefs...), "interface_declaration", "interface",
		"type_alias_declaration", "type", "enum_declaration", "enum", "abstract_class_declaration", "class",
		"internal_module", "namespace", "module", "namespace", "function_signature", "function",
		"method_signature", "method", "abstract_method_signature", "method")
	jsThrough := set("export_statement", "lexical_declaration", "variable_declaration", "class_body",
		"statement_block", "interface_body", "object_type", "expression_statement", "ambient_declaration")
	cDefs := []string{"function_definition", "function", "struct_specifier", "struct",
		"union_specifier", "union", "enum_specifier", "enum", "type_definition", "type"}
	cppDefs := append(append([]string{}, cDefs...), "class_specifier", "class",
		"namespace_definition", "namespace")
	containers := set("class", "interface", "struct", "trait", "impl", "namespace", "module", "enum")
	grammars = map[Language]*grammar{
		LangGo: {lang: ts.NewLanguage(tsgo.Language()),
			defs: m("function_declaration", "function", "method_declaration", "method",
				"type_spec", "type", "type_alias", "type"),
			through: set("type_declaration")},
		LangPython: {lang: ts.NewLanguage(tspy.Language()),
			defs:    m("class_definition", "class", "function_definition", "function"),
			through: set("decorated_definition", "block")},
		LangJavaScript: {lang: ts.NewLanguage(tsjs.Language()), defs: m(jsDefs...), through: jsThrough},
		LangTypeScript: {lang: ts.NewLanguage(tsts.LanguageTypescript()), defs: m(tsDefs...), through: jsThrough},
		LangTSX:        {lang: ts.NewLanguage(tsts.LanguageTSX()), defs: m(tsDefs...), through: jsThrough},
		LangJava: {lang: ts.NewLanguage(tsjava.Language()),
			defs: m("class_declaration", "class", "interface_declaration", "interface",
				"enum_declaration", "enum", "record_declaration", "class", "annotation_type_declaration", "interface",
				"method_declaration", "method", "constructor_declaration", "method"),
			through: set("class_body", "interface_body", "enum_body", "enum_body_declarations")},
		LangRust: {lang: ts.NewLanguage(tsrust.Language()),
			defs: m("function_item", "function", "function_signature_item", "function", "struct_item", "struct",
				"enum_item", "enum", "trait_item", "trait", "impl_item", "impl", "mod_item", "module",
				"type_item", "type", "union_item", "union", "macro_definition", "macro"),
			through: set("declaration_list")},
		LangC: {lang: ts.NewLanguage(tsc.Language()), defs: m(cDefs...),
			through: set("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification", "declaration_list")},
		LangCPP: {lang: ts.NewLanguage(tscpp.Language()), defs: m(cppDefs...),
			through: set("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification",
				"declaration_list", "template_declaration", "field_declaration_list", "access_specifier")},
	}
	for _, g := range grammars {
		g.containers = containers
	}
	parserPools = make(map[Language]chan *ts.Parser, len(grammars))
	for l := range grammars {
		parserPools[l] = make(chan *ts.Parser, 2*runtime.GOMAXPROCS(0))
	}
}

// withTree parses src in lang and calls fn with the root node. The tree is
// closed when fn returns.
func withTree(lang Language, src []byte, fn func(g *grammar, root *ts.Node)) error {
	grammarsOnce.Do(loadGrammars)
	g := grammars[lang]
	if g == nil {
		return fmt.Errorf("no grammar for %q", lang)
	}
	pool := parserPools[lang]
	var p *ts.Parser
	select {
	case p = <-pool:
	default:
		p = ts.NewParser()
		if err := p.SetLanguage(g.lang); err != nil {
			p.Close()
			return fmt.Errorf("load %s grammar: %w", lang, err)
		}
	}
	// Parser.Parse hands tree-sitter the whole rest of the text on every
	// read and the binding copies it each time, which is quadratic on large
	// files; bounded chunks keep each copy small.
	tree := p.ParseWithOptions(func(i int, _ ts.Point) []byte {
		if i >= len(src) {
			return nil
		}
		return src[i:min(len(src), i+readChunk)]
	}, nil, nil)
	select {
	case pool <- p:
	default:
		p.Close()
	}
	if tree == nil {
		return fmt.Errorf("parse %s: parser returned no tree", lang)
	}
	defer tree.Close()
	fn(g, tree.RootNode())
	return nil
}

// readChunk is the size of the text pieces handed to the parser.
const readChunk = 64 << 10

func treeSitterOutline(lang Language, src []byte) ([]Symbol, int, error) {
	var syms []Symbol
	var nerr int
	err := withTree(lang, src, func(g *grammar, root *ts.Node) {
		w := &tsWalker{g: g, src: src, lang: lang}
		syms = w.walk(root, false)
		if root.HasError() {
			nerr = countErrors(root)
		}
	})
	return syms, nerr, err
}

type tsWalker struct {
	g    *grammar
	src  []byte
	lang Language
}

// walk collects the definitions among n's named children. inContainer is
// true inside a class-like body, where functions are methods.
func (w *tsWalker) walk(n *ts.Node, inContainer bool) []Symbol {
	var out []Symbol
	cnt := n.NamedChildCount()
	for i := uint(0); i < cnt; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		kind := c.Kind()
		if sk, ok := w.g.defs[kind]; ok {
			if s, ok := w.symbol(c, sk, inContainer); ok {
				out = append(out, s)
			}
			continue
		}
		if w.g.through[kind] {
			out = append(out, w.walk(c, inContainer)...)
		}
	}
	return out
}

func (w *tsWalker) symbol(n *ts.Node, kind string, inContainer bool) (Symbol, bool) {
	text := func(x *ts.Node) string { return string(w.src[x.StartByte():x.EndByte()]) }
	if n.Kind() == "variable_declarator" { // const f = () => …, const C = class …
		v := n.ChildByFieldName("value")
		if v == nil {
			return Symbol{}, false
		}
		switch v.Kind() {
		case "arrow_function", "function_expression", "function", "generator_function":
		case "class":
			kind = "class"
		default:
			return Symbol{}, false
		}
	}
	body := n.ChildByFieldName("body")
	if (kind == "struct" || kind == "union" || kind == "enum" || kind == "class") && body == nil &&
		(w.lang == LangC || w.lang == LangCPP) {
		return Symbol{}, false // a use such as `struct foo *p`, not a definition
	}
	name := w.name(n, text)
	if name == "" {
		return Symbol{}, false
	}
	if kind == "function" && inContainer {
		kind = "method"
	}
	if n.Kind() == "type_spec" {
		if t := n.ChildByFieldName("type"); t != nil {
			switch t.Kind() {
			case "struct_type":
				kind = "struct"
			case "interface_type":
				kind = "interface"
			}
		}
	}
	s := Symbol{Kind: kind, Name: name, StartLine: int(n.StartPosition().Row) + 1, EndLine: int(n.EndPosition().Row) + 1}
	s.Signature = w.signature(n, body)
	if w.g.containers[kind] && body != nil {
		s.Children = w.walk(body, kind != "namespace" && kind != "module")
	}
	return s, true
}

// name finds a definition's name: the "name" field, else (C, C++) the
// identifier at the end of the declarator chain, else (Rust impl) the type.
func (w *tsWalker) name(n *ts.Node, text func(*ts.Node) string) string {
	if nm := n.ChildByFieldName("name"); nm != nil {
		return text(nm)
	}
	switch n.Kind() {
	case "impl_item":
		t := n.ChildByFieldName("type")
		if t == nil {
			return ""
		}
		if tr := n.ChildByFieldName("trait"); tr != nil {
			return text(tr) + " for " + text(t)
		}
		return text(t)
	case "function_definition", "type_definition":
		d := n.ChildByFieldName("declarator")
		for d != nil {
			switch d.Kind() {
			case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
				"destructor_name", "operator_name", "primitive_type":
				return text(d)
			}
			next := d.ChildByFieldName("declarator")
			if next == nil {
				return ""
			}
			d = next
		}
	}
	return ""
}

func (w *tsWalker) signature(n, body *ts.Node) string {
	start := n.StartByte()
	end := n.EndByte()
	if v := n.ChildByFieldName("value"); n.Kind() == "variable_declarator" && v != nil {
		body = v.ChildByFieldName("body")
	}
	if body != nil && body.StartByte() > start {
		end = body.StartByte()
	}
	s := string(w.src[start:end])
	if body == nil || n.Kind() == "type_spec" {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSpace(s)
	if w.lang == LangPython {
		s = strings.TrimSuffix(s, ":")
	}
	s = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(s, "{")), "=>")
	s = oneLine(s, 160)
	switch w.lang {
	case LangGo:
		if n.Kind() == "type_spec" || n.Kind() == "type_alias" {
			s = "type " + s
		}
	}
	return s
}

// countErrors counts ERROR and MISSING nodes under n.
func countErrors(n *ts.Node) int {
	c := n.Walk()
	defer c.Close()
	count := 0
	for {
		node := c.Node()
		if node.IsError() || node.IsMissing() {
			count++
		}
		// Only descend into subtrees that contain an error.
		if node.HasError() && c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return count
			}
		}
	}
}
