package work

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/internal/fence"
)

// ParseError says which line of an edited comment cannot be read and why.
// Line is 1-based; 0 means the comment as a whole (a missing marker).
type ParseError struct {
	Line int
	Text string
	Msg  string
}

// Error says which line is wrong, quoting it, and why.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d (%q): %s", e.Line, truncate(e.Text, 80), e.Msg)
}

// ErrorReply returns the comment text the bot posts when an edited comment
// cannot be read: which line, what is wrong, and that nothing was changed.
func ErrorReply(kind string, err error) string {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return fmt.Sprintf("I could not read the edited %s: %v. Nothing was changed.", kind, err)
	}
	if pe.Line == 0 {
		return fmt.Sprintf("I could not read the edited %s: %s. Nothing was changed.", kind, pe.Msg)
	}
	text := truncate(pe.Text, 300)
	f := fence.For(text, 3) // the line may hold a fence of its own
	return fmt.Sprintf("I could not read the edited %s at line %d:\n\n%s\n%s\n%s\n\n%s. "+
		"Fix that line and I will read the comment again; nothing was changed.", kind, pe.Line, f, text, f, upperFirst(pe.Msg))
}

var (
	markerRe   = regexp.MustCompile(`<!--\s*issuesmith:(\w+)\s+run=(\S+)\s+v=(\d+)\s*-->`)
	headingRe  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletRe   = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(?:\[([ xX])\]\s+)?(.*)$`)
	actPathRe  = regexp.MustCompile("^(?:\\d+[.)]\\s*)?\\**([A-Za-z]+)\\**:?\\s+(?:`([^`]+)`|(\\S+))(?:\\s*(?:—|–|--|-|:)\\s*(.*))?$")
	detailsRe  = regexp.MustCompile(`(?i)^\s*(</?details>|<summary>.*</summary>|<details>\s*<summary>.*</summary>)\s*$`)
	indentedRe = regexp.MustCompile(`^(\s{2,}|\t)\S`)
)

// ParseMarker finds the hidden marker in a comment body and returns its kind
// and meta; ok is false when the body has none.
func ParseMarker(body string) (kind string, m Meta, ok bool) {
	sm := markerRe.FindStringSubmatch(body)
	if sm == nil {
		return "", Meta{}, false
	}
	v, _ := strconv.Atoi(sm[3])
	return sm[1], Meta{RunID: sm[2], Version: v}, true
}

// line is one line of a comment with its 1-based number.
type line struct {
	n    int
	text string
}

// contentLines splits a body into lines, dropping the marker, blank lines,
// <details>/<summary> wrappers and everything from the footer rule on.
func contentLines(body string) []line {
	var out []line
	for i, t := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		trim := strings.TrimSpace(t)
		if trim == footerRule || trim == "***" || trim == "___" {
			break
		}
		if trim == "" || markerRe.MatchString(trim) || detailsRe.MatchString(trim) {
			continue
		}
		out = append(out, line{n: i + 1, text: undefuse(strings.TrimRight(t, " \t"))})
	}
	return out
}

func checkKind(body, want string) error {
	kind, _, ok := ParseMarker(body)
	if !ok {
		return &ParseError{Msg: fmt.Sprintf("the hidden marker <!-- issuesmith:%s run=… v=… --> is missing; "+
			"keep the first line of the comment as it was", want)}
	}
	if kind != want {
		return &ParseError{Msg: fmt.Sprintf("this is a %s comment, not a %s comment", kind, want)}
	}
	return nil
}

// parseFileRef reads "action `path` — reason" (bold, numbering and backticks
// optional) as people write it in a spec file line or a plan heading.
func parseFileRef(l line, s string) (FileChange, error) {
	m := actPathRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return FileChange{}, &ParseError{Line: l.n, Text: l.text,
			Msg: "expected an action and a path, like: modify `path/to/file.go` — reason"}
	}
	act, err := ParseAction(m[1])
	if err != nil {
		return FileChange{}, &ParseError{Line: l.n, Text: l.text, Msg: err.Error()}
	}
	path := strings.TrimPrefix(strings.TrimSpace(m[2]+m[3]), "./")
	if err := CheckPath(path); err != nil {
		return FileChange{}, &ParseError{Line: l.n, Text: l.text, Msg: err.Error()}
	}
	return FileChange{Path: path, Action: act, Reason: strings.TrimSpace(m[4])}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// undefuse reverses what rendering's ghtext.Defuse added, so the planner and
// the coder read the words as the model wrote them ("@types/node", not
// "@&#8203;types/node", which a model might copy into code); the next render
// defuses them again.
func undefuse(s string) string {
	s = strings.ReplaceAll(s, "&#8203;", "")
	return strings.ReplaceAll(s, "&lt;!--", "<!--")
}
