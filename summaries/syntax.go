package summaries

// SyntaxErrors parses src as the language of path and counts the ERROR and
// MISSING nodes of its syntax tree. supported is false (and n zero) when no
// tree-sitter grammar covers the file or the content is binary: the caller
// must then not treat the file as checked. The coder uses it as a lint guard
// before and after an edit. It is safe for concurrent use.
func SyntaxErrors(path string, src []byte) (n int, supported bool) {
	lang := LanguageOf(path)
	if lang == LangOther || isBinary(src) {
		return 0, false
	}
	_, n, err := treeSitterOutline(lang, src)
	if err != nil {
		return 0, false
	}
	return n, true
}
