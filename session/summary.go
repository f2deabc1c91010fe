package session

import (
	"fmt"
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
		s := e.Tool.Name + " " + OneLine(e.Tool.Args, 80)
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
			return strings.TrimSpace("edit " + e.Edit.Path + ": applied " + e.Edit.Where)
		}
		return "edit " + e.Edit.Path + ": refused: " + OneLine(e.Edit.Refused, 80)
	case e.Check != nil:
		return e.Check.Name + ": " + map[bool]string{true: "passed", false: "failed"}[e.Check.OK]
	case e.Commit != nil:
		return fmt.Sprintf("pushed %.10s to %s", e.Commit.SHA, e.Commit.Branch)
	case e.GitHub != nil:
		return strings.TrimSpace("GitHub: " + e.GitHub.What + " " + e.GitHub.Target)
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
