package summaries

import (
	"regexp"
	"strings"
)

// query is what a search reads out of an issue text, the way an engineer
// skims it: its terms for text scoring, and the explicit pointers into the
// code (file paths, dotted module names, stack-trace frames and identifiers
// written as code).
type query struct {
	terms []string // distinct terms (Terms), in order of first appearance
	// paths are file paths as written ("src/_pytest/python.py",
	// "requests/sessions.py"); frames are paths from stack traces, the
	// innermost last.
	paths  []string
	frames []string
	// dirs are slash paths without a file extension ("net/http",
	// "github.com/o/r/pkg/store"): packages or folders.
	dirs []string
	// modules are dotted names with at least two parts ("_pytest.python",
	// "astroid.nodes.Const").
	modules []string
	// packages are folder names the text calls packages ("the criteria
	// package", "package `store`").
	packages []string
	// idents are identifiers written as code: inside backticks or code
	// blocks, or shaped like code (snake_case, camelCase, call syntax).
	idents map[string]bool
	// blockIdents are the other identifiers of fenced code blocks (sample
	// code, logs): weaker pointers than inline code.
	blockIdents map[string]bool
	// phrases are literal strings worth finding verbatim in a file:
	// inline code with punctuation, command-line flags, the constant start
	// of error messages.
	phrases []string
}

var (
	fencedRe  = regexp.MustCompile("(?s)```.*?```")
	tickRe    = regexp.MustCompile("`([^`\n]+)`")
	pathRe    = regexp.MustCompile(`(?:[\w.\-]+/)*[\w.\-]+\.(?:py|pyi|go|js|jsx|mjs|cjs|ts|tsx|java|kt|rs|c|h|cc|cpp|hpp|rb|php|cs|scala|swift)\b`)
	pyFrameRe = regexp.MustCompile(`File "([^"]+)", line \d+`)
	// pytest's own traceback style: "src/pkg/mod.py:123: in func"
	pytestFrameRe = regexp.MustCompile(`(?m)^(\S+\.py):\d+: `)
	goFrameRe     = regexp.MustCompile(`(?m)^\s+((?:[\w.\-]+/)*[\w.\-]+\.go):\d+`)
	jsFrameRe     = regexp.MustCompile(`\bat (?:[^\s(]+ )?\(?((?:[\w.\-]+/)*[\w.\-]+\.(?:js|jsx|mjs|cjs|ts|tsx)):\d+:\d+\)?`)
	dirRe         = regexp.MustCompile(`(?:[\w.\-]+/)+[\w\-]+/?`)
	dottedRe      = regexp.MustCompile(`\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b`)
	callRe        = regexp.MustCompile(`\b([A-Za-z_]\w*)\(`)
	flagRe        = regexp.MustCompile(`(?:^|[\s"'(=` + "`" + `])(--?[A-Za-z][\w-]{2,})`)
	quotedRe      = regexp.MustCompile(`"([^"\n]{5,80})"|'([^'\n]{5,80})'`)
	codeRe        = regexp.MustCompile(`\b[A-Z]{1,2}\d{3,4}\b`)
	errMsgRe      = regexp.MustCompile(`\b\w*(?:Error|Exception|Warning)\w*: ([^\n]+)`)
)

func parseQuery(text string) *query {
	q := &query{idents: map[string]bool{}, blockIdents: map[string]bool{}}
	seen := map[string]bool{}
	eachTerm(text, func(t string) {
		if !seen[t] {
			seen[t] = true
			q.terms = append(q.terms, t)
		}
	})
	q.collectIdents(text)
	q.terms = q.withoutStopWords()
	q.phrases = phrasesOf(text)
	q.packages = packageNames(text)
	q.collectPaths(strings.ReplaceAll(text, `\`, "/"))
	mseen := map[string]bool{}
	for _, m := range dottedRe.FindAllString(text, -1) {
		if pathRe.MatchString(m) || mseen[m] {
			continue // a file name such as setup.py, handled as a path
		}
		if first := m[:strings.IndexByte(m, '.')]; first == "self" || first == "cls" || first == "this" {
			continue // an attribute chain on an instance names no module
		}
		mseen[m] = true
		q.modules = append(q.modules, m)
		parts := strings.Split(m, ".")
		if last := parts[len(parts)-1]; len(last) > 2 && !codeNoise[last] {
			q.idents[last] = true
		}
		// a qualified name (http.Server.Shutdown) names its parts too,
		// more weakly than the last one
		for _, p := range parts[1 : len(parts)-1] {
			if len(p) > 2 && !codeNoise[p] && !q.idents[p] {
				q.blockIdents[p] = true
			}
		}
	}
	return q
}

// collectIdents finds identifiers written as code. Inline code (`name`) is
// a deliberate pointer; identifiers in fenced blocks (sample code, logs) are
// weaker unless shaped like code or called.
func (q *query) collectIdents(text string) {
	for _, blk := range fencedRe.FindAllString(text, -1) {
		eachIdent(blk, func(id string) {
			if len(id) > 2 && !codeNoise[id] {
				q.blockIdents[id] = true
			}
		})
	}
	for _, m := range tickRe.FindAllStringSubmatch(fencedRe.ReplaceAllString(text, " "), -1) {
		eachIdent(m[1], func(id string) {
			if len(id) > 2 && !codeNoise[id] {
				q.idents[id] = true
			}
		})
	}
	eachIdent(text, func(id string) {
		if codeShaped(id) {
			q.idents[id] = true
		}
	})
	for _, m := range callRe.FindAllStringSubmatch(text, -1) {
		if len(m[1]) > 2 && !codeNoise[m[1]] {
			q.idents[m[1]] = true
		}
	}
}

// collectPaths finds stack-trace frames, file paths and folder paths in
// text (backslashes already turned into slashes).
func (q *query) collectPaths(text string) {
	for _, re := range []*regexp.Regexp{pyFrameRe, pytestFrameRe, goFrameRe, jsFrameRe} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			q.frames = append(q.frames, m[1])
		}
	}
	seen := map[string]bool{}
	for _, f := range q.frames { // a frame is a pointer of its own kind
		seen[strings.TrimPrefix(f, "/")] = true
	}
	for _, m := range pathRe.FindAllString(text, -1) {
		if !seen[m] {
			seen[m] = true
			q.paths = append(q.paths, m)
		}
	}
	for _, m := range dirRe.FindAllString(text, -1) {
		m = strings.Trim(m, "/")
		if !seen[m] && !strings.Contains(m, "://") {
			seen[m] = true
			q.dirs = append(q.dirs, m)
		}
	}
}

// codeShaped reports identifiers that prose would not contain: snake_case
// with a letter on both sides of an underscore, inner capitals (camelCase,
// PascalCase with two humps) or dunder names.
func codeShaped(id string) bool {
	if len(id) < 4 {
		return false
	}
	if strings.HasPrefix(id, "__") && strings.HasSuffix(id, "__") {
		return true
	}
	if i := strings.IndexByte(strings.Trim(id, "_"), '_'); i > 0 {
		return true
	}
	humps := 0
	for i := 1; i < len(id); i++ {
		if id[i] >= 'A' && id[i] <= 'Z' && id[i-1] >= 'a' && id[i-1] <= 'z' {
			humps++
		}
	}
	return humps > 0
}

// codeNoise are keywords and builtins common to code snippets in issues;
// they point at no file of the project.
var codeNoise = map[string]bool{
	"def": true, "class": true, "return": true, "import": true, "from": true, "self": true, "None": true,
	"True": true, "False": true, "print": true, "assert": true, "for": true, "while": true, "with": true,
	"not": true, "and": true, "the": true, "func": true, "var": true, "let": true, "const": true,
	"function": true, "new": true, "this": true, "null": true, "true": true, "false": true, "nil": true,
	"int": true, "str": true, "string": true, "bool": true, "list": true, "dict": true, "len": true,
	"range": true, "type": true, "pass": true, "raise": true, "except": true, "try": true, "else": true,
	"elif": true, "lambda": true, "yield": true, "async": true, "await": true, "python": true, "pip": true,
	"install": true, "Traceback": true, "most": true, "recent": true, "call": true, "last": true,
	"File": true, "line": true, "error": true, "Error": true, "Exception": true, "main": true,
	"package": true, "public": true, "private": true, "static": true, "void": true, "args": true,
	"kwargs": true, "object": true, "super": true, "__init__": true, "__name__": true, "__main__": true,
	"__call__": true, "__repr__": true, "__str__": true, "__eq__": true, "__hash__": true, "isinstance": true,
	"getattr": true, "setattr": true, "hasattr": true, "open": true, "format": true, "test": true,
	"tests": true, "src": true, "lib": true, "site": true, "packages": true, "site-packages": true,
}

// phrasesOf extracts the literal strings of an issue that a source file
// may contain verbatim.
func phrasesOf(text string) []string {
	seen := map[string]bool{}
	var out []string
	addp := func(p string) {
		p = strings.TrimSpace(p)
		if len(p) >= 5 && len(p) <= 120 && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, m := range tickRe.FindAllStringSubmatch(fencedRe.ReplaceAllString(text, " "), -1) {
		if strings.ContainsAny(m[1], " -:.(=/") {
			addp(m[1])
		}
	}
	for _, m := range flagRe.FindAllStringSubmatch(text, -1) {
		addp(m[1])
	}
	// quoted strings: messages, option values, keys as the user saw them
	for _, m := range quotedRe.FindAllStringSubmatch(text, -1) {
		q := m[1] + m[2]
		if pathRe.MatchString(q) || strings.Contains(q, "://") {
			continue // paths and URLs are matched as paths, not text
		}
		if strings.ContainsAny(q, " -_.:") || codeRe.MatchString(q) {
			addp(q)
		}
	}
	// message codes such as W0511 or E501
	for _, m := range codeRe.FindAllString(text, -1) {
		addp(m)
	}
	for _, m := range errMsgRe.FindAllStringSubmatch(text, -1) {
		msg := m[1]
		// keep the constant start: formatted values follow quotes,
		// digits or brackets
		if i := strings.IndexAny(msg, "'\"0123456789{<[("); i >= 0 {
			msg = msg[:i]
		}
		if len(strings.TrimSpace(msg)) >= 12 {
			addp(msg)
		}
	}
	return out
}

// withoutStopWords returns the terms less the English function words, but
// keeps one written as code (`if`, `with`).
func (q *query) withoutStopWords() []string {
	code := map[string]bool{}
	for id := range q.idents {
		code[strings.ToLower(id)] = true
	}
	out := q.terms[:0]
	for _, t := range q.terms {
		if !stopWords[t] || code[t] {
			out = append(out, t)
		}
	}
	return out
}
