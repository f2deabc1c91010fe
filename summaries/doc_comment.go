package summaries

import (
	"strings"
)

// leadingDoc returns the first sentence of a file's leading documentation:
// a Python module docstring, or the first comment block (//, #, /* */)
// that is not a licence header, shebang or build tag.
func leadingDoc(path string, src []byte) string {
	s := string(src[:min(len(src), 4096)])
	lines := strings.Split(s, "\n")
	var buf []string
	inBlock, inDoc := false, ""
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		switch {
		case inDoc != "":
			if i := strings.Index(t, inDoc); i >= 0 {
				buf = append(buf, t[:i])
				return firstSentence(buf)
			}
			buf = append(buf, t)
		case inBlock:
			end := strings.Contains(t, "*/")
			t = strings.TrimSpace(strings.TrimPrefix(strings.SplitN(t, "*/", 2)[0], "*"))
			buf = append(buf, t)
			if end {
				if doc := firstSentence(buf); doc != "" {
					return doc
				}
				buf, inBlock = nil, false
			}
		case t == "" || strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "//go:build") ||
			strings.HasPrefix(t, "# -*-") || strings.HasPrefix(t, "# coding"):
			if len(buf) > 0 {
				if doc := firstSentence(buf); doc != "" {
					return doc
				}
				buf = nil
			}
		case LanguageOf(path) == LangPython && (strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`) ||
			strings.HasPrefix(t, `r"""`)):
			q := t[strings.IndexAny(t, `"'`):][:3]
			rest := t[strings.Index(t, q)+3:]
			if i := strings.Index(rest, q); i >= 0 {
				return firstSentence([]string{rest[:i]})
			}
			inDoc, buf = q, []string{rest}
		case strings.HasPrefix(t, "/*"):
			inBlock = true
			rest := strings.TrimLeft(strings.TrimPrefix(t, "/*"), "*!")
			if i := strings.Index(rest, "*/"); i >= 0 {
				inBlock = false
				if doc := firstSentence([]string{rest[:i]}); doc != "" {
					return doc
				}
				continue
			}
			buf = append(buf, strings.TrimSpace(rest))
		case strings.HasPrefix(t, "//") || (strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#include") &&
			!strings.HasPrefix(t, "#define") && !strings.HasPrefix(t, "#pragma") && !strings.HasPrefix(t, "#if")):
			buf = append(buf, strings.TrimSpace(strings.TrimLeft(t, "/#!")))
		default:
			return firstSentence(buf)
		}
	}
	return ""
}

// firstSentence joins comment lines and cuts at the first sentence end.
// Licence headers give "".
func firstSentence(lines []string) string {
	s := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	low := strings.ToLower(s)
	if s == "" || strings.Contains(low, "copyright") || strings.Contains(low, "license") ||
		strings.Contains(low, "spdx-") || strings.HasPrefix(low, "code generated") {
		return ""
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && i > 10 {
			return oneLine(s[:i+1], 200)
		}
	}
	return oneLine(s, 200)
}
