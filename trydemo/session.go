package trydemo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// loadSession reads the run's session from the database bot serve used
// (closed by then): the page shows it beside the issue.
func loadSession(ctx context.Context, databaseURL string) (*session.Record, error) {
	st, err := store.Open(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	list, err := st.ListSessions(ctx, store.SessionFilter{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errors.New("bot serve recorded no session of the run")
	}
	return session.Load(ctx, st, list[0].ID)
}

// sessionStage is one stage of the page's session timeline.
type sessionStage struct {
	Name   string
	Events []sessionEvent
}

// sessionEvent is one event: its one-line summary and, when it has one,
// the text it expands to (the model's reply, a tool's result, a diff, a
// check's output).
type sessionEvent struct {
	Kind, Summary, Detail string
}

// timeline groups rec's events by stage, in order; the forge's writes
// are named by forge (the session calls every forge's "GitHub").
func timeline(rec *session.Record, forge string) []sessionStage {
	if rec == nil {
		return nil
	}
	var out []sessionStage
	for _, e := range rec.Events {
		if len(out) == 0 || out[len(out)-1].Name != e.Stage {
			out = append(out, sessionStage{Name: e.Stage})
		}
		st := &out[len(out)-1]
		summary := e.Summary()
		if e.GitHub != nil && forge != "" && e.GitHub.Forge == "" {
			summary = forge + strings.TrimPrefix(summary, "GitHub") // a session recorded before writes named their forge
		}
		st.Events = append(st.Events, sessionEvent{Kind: string(e.Kind), Summary: summary, Detail: detail(e)})
	}
	return out
}

// detail is the text an event expands to on the page.
func detail(e session.Event) string {
	switch {
	case e.Model != nil:
		var b strings.Builder
		b.WriteString(e.Model.Text)
		for _, tc := range e.Model.ToolCalls {
			fmt.Fprintf(&b, "\n→ %s %s", tc.Name, tc.Arguments)
		}
		return strings.TrimSpace(b.String())
	case e.Tool != nil:
		return strings.TrimSpace(e.Tool.Args + "\n\n" + e.Tool.Result)
	case e.Edit != nil:
		return strings.TrimSpace(e.Edit.Diff + e.Edit.Refused + "\n" + e.Edit.Feedback)
	case e.Check != nil:
		return strings.TrimSpace(e.Check.Command + "\n" + e.Check.Output)
	case e.Commit != nil:
		return e.Commit.Message
	case e.GitHub != nil:
		return e.GitHub.Text
	case e.Compression != nil:
		return e.Compression.Record
	case e.Observer != nil:
		return e.Observer.Text
	}
	return ""
}
