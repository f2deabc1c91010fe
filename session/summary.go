package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Summary is the event in one line, as the page's timeline and `bot
// sessions show` print it.
func (e Event) Summary() string {
	switch {
	case e.Model != nil:
		m := e.Model
		s := fmt.Sprintf("%s · %s · %d in", m.Role, m.Model, m.PromptTokens)
		if m.CachedTokens > 0 {
			s += fmt.Sprintf(" (%d cached)", m.CachedTokens)
		}
		s += fmt.Sprintf(" · %d out · cost %.4f", m.CompletionTokens, m.Cost)
		if m.FinishReason != "" {
			s += " · " + m.FinishReason
		}
		var calls []string
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.Name)
		}
		if len(calls) > 0 {
			s += " → " + strings.Join(calls, ", ")
		}
		if m.Error != "" {
			s += " · error: " + OneLine(m.Error, 80)
		}
		return s
	case e.Tool != nil:
		s := e.Tool.Name + " " + OneLine(Readable(e.Tool.Args), 80)
		if e.Tool.IsError || e.Tool.Error != "" {
			s += " · error"
		}
		return fmt.Sprintf("%s · %d bytes", s, e.Tool.ResultBytes)
	case e.Compression != nil:
		return fmt.Sprintf("compressed the history: %d → %d tokens", e.Compression.TokensBefore, e.Compression.TokensAfter)
	case e.Observer != nil:
		return "observer: " + OneLine(e.Observer.Text, 100)
	case e.Edit != nil:
		if e.Edit.Applied {
			return strings.TrimSpace("edit " + e.Edit.Path + ": " + applied(e.Edit.Where))
		}
		return "edit " + e.Edit.Path + ": refused: " + OneLine(e.Edit.Refused, 80)
	case e.Check != nil:
		return e.Check.Name + ": " + map[bool]string{true: "passed", false: "failed"}[e.Check.OK]
	case e.Commit != nil:
		return fmt.Sprintf("pushed %.10s to %s", e.Commit.SHA, e.Commit.Branch)
	case e.GitHub != nil:
		forge := e.GitHub.Forge
		if forge == "" {
			forge = "GitHub"
		}
		return strings.TrimSpace(forge + ": " + e.GitHub.What + " " + e.GitHub.Target)
	case e.Cut != nil:
		return "cut: " + OneLine(e.Cut.Text, 100)
	}
	return string(e.Kind)
}

// OneLine folds s onto one line of at most n characters.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// blocksApplied is the coder's "N block(s) applied".
var blocksApplied = regexp.MustCompile(`^(\d+) block\(s\) applied$`)

// applied says where an edit applied: "applied 1 block", "applied 3
// blocks", "applied at lines 12-30".
func applied(where string) string {
	where = strings.TrimSpace(where)
	if m := blocksApplied.FindStringSubmatch(where); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "applied " + Plural(n, "block")
	}
	return strings.TrimSpace("applied " + strings.TrimSuffix(where, " applied"))
}

// Plural is n and noun, the noun in the plural unless n is 1: "1 model
// call", "2 model calls", "0 events".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Readable is a tool call's JSON arguments as a person reads them: written
// again, indented, keys in their order, by an encoder that leaves <, > and
// & as they are (not \u003c, \u003e, \u0026); text that is not one JSON
// value is returned as it is (a cut or malformed call).
func Readable(args string) string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var b strings.Builder
	if err := rewrite(dec, &b, ""); err != nil || dec.More() {
		return args
	}
	if _, err := dec.Token(); err != io.EOF {
		return args
	}
	return b.String()
}

// rewrite copies the next JSON value of dec to b, indented.
func rewrite(dec *json.Decoder, b *strings.Builder, indent string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		end := map[json.Delim]string{'{': "}", '[': "]"}[v]
		b.WriteString(v.String())
		n := 0
		for ; dec.More(); n++ {
			if n > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + "  ")
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				b.WriteString(quote(fmt.Sprint(key)) + ": ")
			}
			if err := rewrite(dec, b, indent+"  "); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if n > 0 {
			b.WriteString("\n" + indent)
		}
		b.WriteString(end)
	case string:
		b.WriteString(quote(v))
	case nil:
		b.WriteString("null")
	default: // json.Number, bool
		fmt.Fprint(b, v)
	}
	return nil
}

// quote is s as a JSON string, without HTML escapes.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// IssueTitle is the title of the issue the session worked on, as the
// explorer was given it ("<issue>\nIssue #N: title" in its first request;
// local runs without a number too), or "" when no recorded event holds it.
func (r *Record) IssueTitle() string {
	for _, e := range r.Events {
		if e.Model == nil {
			continue
		}
		for _, m := range e.Model.Input {
			_, rest, ok := strings.Cut(m.Content, "<issue>\n")
			if !ok || m.Role != "user" {
				continue
			}
			line, _, _ := strings.Cut(rest, "\n")
			if after, ok := strings.CutPrefix(line, "Issue #"); ok {
				if _, title, ok := strings.Cut(after, ": "); ok {
					line = title
				}
			}
			if line = strings.TrimSpace(line); line != "" {
				return line
			}
		}
	}
	return ""
}
