package trydemo

import (
	"regexp"
	"strconv"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// refLinker links "#N" to the page's own section for issue or pull request
// N, as GitHub links references in comments ("Fixes #1", "→ #2"). A number
// the page does not show stays text, and so does "#N" inside a word, a
// character reference (&#35;), code, a link or raw HTML.
type refLinker struct{ targets map[int]string }

var refRE = regexp.MustCompile(`#[0-9]+`)

func (r refLinker) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindLink, ast.KindAutoLink, ast.KindRawHTML, ast.KindHTMLBlock,
			ast.KindCodeBlock, ast.KindFencedCodeBlock:
			return ast.WalkSkipChildren, nil
		}
		if t, ok := n.(*ast.Text); ok {
			texts = append(texts, t)
		}
		return ast.WalkContinue, nil
	})
	for _, t := range texts {
		r.link(t, src)
	}
}

// link splits t around each reference it holds: text, link, text, ...
func (r refLinker) link(t *ast.Text, src []byte) {
	seg, base := t.Segment, t.Segment.Start
	parent := t.Parent()
	for _, m := range refRE.FindAllIndex(t.Segment.Value(src), -1) {
		start, end := base+m[0], base+m[1]
		before := byte(' ')
		if start > 0 {
			before = src[start-1]
		}
		if wordByte(before) || before == '&' || end < len(src) && wordByte(src[end]) {
			continue
		}
		n, err := strconv.Atoi(string(src[start+1 : end]))
		target, ok := r.targets[n]
		if err != nil || !ok {
			continue
		}
		if start > seg.Start {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start, start)))
		}
		link := ast.NewLink()
		link.Destination = []byte(target)
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(start, end)))
		parent.InsertBefore(parent, t, link)
		seg = text.NewSegment(end, seg.Stop)
	}
	t.Segment = seg
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
