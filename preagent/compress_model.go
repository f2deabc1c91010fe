package preagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

// verdicts is the compressor's JSON reply.
type verdicts struct {
	Files      []fileNote `json:"files"`
	Hypothesis string     `json:"hypothesis"`
}

// modelVerdicts asks the explorer's own model, at the end of its own
// conversation (llm.State.Aside: the same request shape, so a provider's
// prompt cache serves all of it), to summarise and judge the files of the
// turns about to be dropped. A failed call or an unreadable reply is not
// fatal: it returns no verdicts and the caller falls back to its own. Only
// a cancelled ctx is returned as an error.
func (s *session) modelVerdicts(ctx context.Context, st *llm.State, paths []string) (verdicts, error) {
	q := prompt("compress.md")
	if len(paths) > 0 {
		q += "\n\nFiles to judge: " + strings.Join(paths, ", ")
	}
	resp, err := st.Aside(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return verdicts{}, fmt.Errorf("compress: %w", ctx.Err())
		}
		s.emit(work.Event{Kind: work.EventCompress, Step: s.step, Detail: "model verdicts failed, using fallback: " + oneLine(err.Error(), 200)})
		return verdicts{}, nil
	}
	s.emit(work.Event{Kind: work.EventCompress, Step: s.step, Usage: resp.Usage, Detail: "model verdicts"})
	var v verdicts
	if err := decodeJSON(resp.Message.Content, &v); err != nil {
		s.emit(work.Event{Kind: work.EventCompress, Step: s.step, Detail: "model verdicts unreadable, using fallback: " + oneLine(err.Error(), 200)})
		return verdicts{}, nil
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var keep []fileNote
	for _, n := range v.Files {
		n.Path = strings.TrimPrefix(strings.Trim(strings.TrimSpace(n.Path), "`"), "./")
		if want[n.Path] && strings.TrimSpace(n.Summary) != "" {
			keep = append(keep, n)
		}
	}
	v.Files = keep
	return v, nil
}

// renderLog writes turns as plain text for another model, each tool result
// cut to an equal share of room tokens.
func renderLog(msgs []llm.Message, room int) string {
	results := 0
	for _, m := range msgs {
		if m.Role != llm.Assistant {
			results++
		}
	}
	share := max(room/max(results, 1), 40)
	return cutTokens(renderSteps(msgs, share), max(room, 40), "earlier log cut")
}

// renderSteps writes turns as plain text, each tool result cut to share
// tokens; a turn's text depends only on that turn and share.
func renderSteps(msgs []llm.Message, share int) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.Assistant:
			if t := strings.TrimSpace(m.Content); t != "" {
				b.WriteString("I thought: " + oneLine(t, 600) + "\n")
			}
			for _, tc := range m.ToolCalls {
				b.WriteString("I did: " + describeCall(tc) + "\n")
			}
		default:
			b.WriteString("I saw:\n" + cutTokens(m.Content, share, "cut") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// decodeJSON reads one JSON object from a model reply, tolerating a code
// fence or prose around it.
func decodeJSON(text string, v any) error {
	t := strings.TrimSpace(text)
	if i, j := strings.Index(t, "{"), strings.LastIndex(t, "}"); i >= 0 && j > i {
		t = t[i : j+1]
	} else {
		return errors.New("no JSON object in the reply")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode reply: %w", err)
	}
	return nil
}

// fallbackNote judges a file without the model: the summary comes from the
// index or the file's first comment, and the file is relevant when the
// explorer mentioned it in its reasoning or when at least two of the issue's
// terms occur in what was shown of it.
func (s *session) fallbackNote(path string, files []*observation, dropped []llm.Message) fileNote {
	var shown strings.Builder
	for _, o := range files {
		if o.Path == path {
			shown.WriteString(o.Content + "\n")
		}
	}
	n := fileNote{Path: path, Summary: s.fileSummary(path)}
	if n.Summary == "" {
		n.Summary = firstComment(shown.String())
	}
	hits := matchedTerms(shown.String(), s.rec.terms)
	// Mentioned after it was shown: naming a file to open it says nothing.
	mentioned, shownAt := false, -1
	for i, m := range dropped {
		switch {
		case m.Role != llm.Assistant && shownAt < 0 && strings.Contains(m.Content, path):
			shownAt = i
		case m.Role == llm.Assistant && shownAt >= 0 && strings.Contains(m.Content, path):
			mentioned = true
		}
	}
	switch {
	case mentioned && len(hits) > 0:
		n.Relevant, n.Why = true, "I named it in my reasoning and it mentions "+strings.Join(hits, ", ")
	case mentioned:
		n.Relevant, n.Why = true, "I named it in my reasoning"
	case len(hits) >= 2:
		n.Relevant, n.Why = true, "it mentions "+strings.Join(hits, ", ")
	case len(hits) == 1:
		n.Why = "only mentions " + hits[0]
	default:
		n.Why = "none of the issue's terms occur in the part I saw"
	}
	return n
}

var lineNumber = regexp.MustCompile(`^\s*\d+\s*[│|:\t]\s?`)

// firstComment returns the first comment line (or else the first code line)
// of a file window or outline, as a summary of last resort.
func firstComment(window string) string {
	code := ""
	for _, l := range strings.Split(window, "\n") {
		l = strings.TrimSpace(lineNumber.ReplaceAllString(l, ""))
		for _, p := range []string{"//", "#", "/*", "*", "\"\"\"", "--", ";"} {
			if t, ok := strings.CutPrefix(l, p); ok {
				if t = strings.TrimSpace(strings.Trim(t, "*/#!\" ")); len(t) > 8 && !strings.HasPrefix(t, "go:") {
					return oneLine(t, 160)
				}
				l = ""
			}
		}
		if code == "" && len(l) > 3 && !strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "lines ") {
			code = l
		}
	}
	if code == "" {
		return "(no summary)"
	}
	return "starts with: " + oneLine(code, 120)
}

// stopWords are frequent words that say nothing about where code lives.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true,
	"from": true, "should": true, "would": true, "when": true, "into": true, "have": true, "there": true, "their": true,
	"which": true, "what": true, "about": true, "also": true, "them": true, "then": true, "than": true, "issue": true,
	"please": true, "like": true, "other": true, "others": true, "make": true, "need": true, "needs": true, "want": true, "does": true, "some": true}

// issueTerms returns the distinctive words of an issue (four letters or more).
func issueTerms(is Issue) map[string]bool {
	out := map[string]bool{}
	for _, t := range summaries.Terms(is.Title + "\n" + is.Body) {
		if len(t) >= 4 && !stopWords[t] {
			out[t] = true
		}
	}
	return out
}

// matchedTerms lists the terms occurring in text, sorted, at most five.
func matchedTerms(text string, terms map[string]bool) []string {
	lower := strings.ToLower(text)
	var out []string
	for t := range terms {
		if strings.Contains(lower, t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
