package sessionweb

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"cost":   func(c float64) string { return fmt.Sprintf("%.4f", c) },
	"num":    humanize.Comma,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"dur":    func(d time.Duration) string { return roundDur(d).String() },
	"plus1":  func(i int) int { return i + 1 },
	"equals": func(a, b string) bool { return a == b },
	"dict":   dict,
	"plural": func(n any, noun string) string {
		switch n := n.(type) {
		case int:
			return session.Plural(n, noun)
		case int64:
			return session.Plural(int(n), noun)
		}
		return fmt.Sprint(n, " ", noun)
	},
}).ParseFS(templateFS, "templates/*.html"))

// render writes a page; a template error is ours (500), caught before any
// byte is sent.
func (h *Handler) render(w http.ResponseWriter, status int, name string, v any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, v); err != nil {
		h.log.Error("sessions page: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// site is what every page says of itself: its path and its forge.
type site struct {
	Base, Forge string
}

func (h *Handler) site() site { return site{Base: h.base, Forge: h.forge.name()} }

type signinView struct {
	Site            site
	Message, Return string
}

type messageView struct {
	Site               site
	Login, Title, Text string
}

type listView struct {
	Site          site
	Login         string
	Repo, State   string
	Repos, States []string
	Rows          []rowView
	Page          int
	Newer, Older  string
}

type rowView struct {
	ID             int64
	Repo, IssueURL string
	Issue          int
	Requester      string
	State, Stage   string
	Started        time.Time
	Duration       time.Duration
	Running        bool
	ModelCalls     int64
	Tokens, Cached int64
	Cost           float64
	Bytes          int64
	Cut            bool
}

func (h *Handler) row(s *store.Session) rowView {
	end := s.EndedAt
	if s.Running() {
		end = s.UpdatedAt
	}
	return rowView{ID: s.ID, Repo: s.FullRepo(), IssueURL: h.issueURL(s), Issue: s.Issue, Requester: s.Requester,
		State: s.State, Stage: s.Stage, Started: s.StartedAt, Duration: end.Sub(s.StartedAt), Running: s.Running(),
		ModelCalls: s.ModelCalls, Tokens: s.PromptTokens + s.CompletionTokens, Cached: s.CachedTokens, Cost: s.Cost,
		Bytes: s.Bytes, Cut: s.Cut}
}

type detailView struct {
	Site    site
	Login   string
	Title   string // the issue's title, when the session holds it
	Row     rowView
	Stages  []*stageView
	Prompts []promptView
	Refresh bool
}

type promptView struct{ Hash, Kind, Body string }

type stageView struct {
	Name   string
	Steps  []*stepView
	Cost   float64
	Tokens int64
}

type stepView struct {
	Key     string
	Attempt int
	Events  []eventView
	Calls   int
	Cost    float64
	Tokens  int64
	Took    time.Duration
}

// timeline groups the events by stage and step, in order.
func (h *Handler) timeline(login string, rec *session.Record) detailView {
	v := detailView{Site: h.site(), Login: login, Title: rec.IssueTitle(), Row: h.row(rec.Session), Refresh: rec.Session.Running()}
	for _, b := range rec.Blobs {
		v.Prompts = append(v.Prompts, promptView{Hash: b.Hash, Kind: b.Kind, Body: b.Body})
	}
	var stage *stageView
	var step *stepView
	for _, e := range rec.Events {
		if stage == nil || stage.Name != e.Stage {
			stage = &stageView{Name: e.Stage}
			v.Stages = append(v.Stages, stage)
			step = nil
		}
		if step == nil || step.Key != e.Step || step.Attempt != e.Attempt {
			step = &stepView{Key: e.Step, Attempt: e.Attempt}
			stage.Steps = append(stage.Steps, step)
		}
		ev := describe(e)
		step.Events = append(step.Events, ev)
		step.Took += e.Duration
		if m := e.Model; m != nil {
			step.Calls++
			step.Cost += m.Cost
			step.Tokens += int64(m.PromptTokens + m.CompletionTokens)
			stage.Cost += m.Cost
			stage.Tokens += int64(m.PromptTokens + m.CompletionTokens)
		}
	}
	sortPrompts(v.Prompts)
	return v
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// dict builds the map a template passes to "head".
func dict(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}
