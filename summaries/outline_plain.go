package summaries

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// plainDef matches lines that look like definitions in most languages:
// keywords before a name, or Markdown/reStructuredText-style headings.
var plainDef = regexp.MustCompile(`^\s*(?:(?:export|public|private|protected|static|async|abstract|final|pub|override|open|internal)\s+)*` +
	`(def|fn|func|fun|function|class|interface|struct|enum|trait|module|object|type|sub|proc|impl)\s+([A-Za-z_][\w.:$!?]*)`)

var mdHeading = regexp.MustCompile(`^(#{1,3})\s+(.+?)\s*#*$`)

// plainOutline is the last resort: one symbol per line that looks like a
// definition or a Markdown heading. End lines are not known, so each symbol
// ends where the next begins.
func plainOutline(p string, src []byte) []Symbol {
	md := strings.HasSuffix(strings.ToLower(p), ".md")
	var syms []Symbol
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if md {
			if mm := mdHeading.FindStringSubmatch(t); mm != nil {
				syms = append(syms, Symbol{Kind: "heading", Name: mm[2], Signature: oneLine(t, 160), StartLine: line})
			}
			continue
		}
		if mm := plainDef.FindStringSubmatch(t); mm != nil {
			syms = append(syms, Symbol{Kind: mm[1], Name: mm[2], Signature: oneLine(t, 160), StartLine: line})
		}
	}
	for i := range syms {
		syms[i].EndLine = line
		if i+1 < len(syms) {
			syms[i].EndLine = max(syms[i].StartLine, syms[i+1].StartLine-1)
		}
	}
	return syms
}
