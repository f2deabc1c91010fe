package trydemo

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
)

//go:embed page.html
var pageHTML string

var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// newMarkdown renders comments as GitHub does: GitHub-flavoured Markdown
// (tables, task lists, strikethrough, autolinks), a newline is a line
// break, "#N" links to issue or pull request N (targets: its section on
// the page), and the HTML the text carries (<details>, <sub>) is kept, then
// sanitized.
func newMarkdown(targets map[int]string) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(refLinker{targets}, 999))),
		goldmark.WithRendererOptions(html.WithHardWraps(), html.WithUnsafe()),
	)
}

// sanitizer is bluemonday's policy for user content plus the task-list
// checkboxes GFM renders (disabled, as GitHub shows them to a reader).
var sanitizer = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	return p
}()

// renderMarkdown is src as GitHub shows it, safe to put in the page.
func renderMarkdown(md goldmark.Markdown, src string) (template.HTML, error) {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return template.HTML(sanitizer.SanitizeBytes(b.Bytes())), nil // #nosec G203: sanitized just now
}

// entry is one comment of the page's conversation.
type entry struct {
	ID        int64 // the anchor the bot's links point at (#issuecomment-ID)
	User      string
	Bot       bool
	Kind      string // the bot's comment kind (spec, plan, progress), from its marker
	Edited    bool
	Body      template.HTML
	Reactions []reaction
}

// reaction is one emoji under a comment, as GitHub groups them.
type reaction struct {
	Emoji string
	Count int
	Who   string // the logins, for the tooltip
}

// emoji is GitHub's picture for each reaction content.
var emoji = map[string]string{"+1": "👍", "-1": "👎", "laugh": "😄", "confused": "😕", "heart": "❤️",
	"hooray": "🎉", "rocket": "🚀", "eyes": "👀"}

// reactionsOf groups the fake's "user:content" reactions by content, in
// the order first given.
func reactionsOf(list []string) []reaction {
	var out []reaction
	at := map[string]int{}
	for _, r := range list {
		user, content, _ := strings.Cut(r, ":")
		i, ok := at[content]
		if !ok {
			i, at[content] = len(out), len(out)
			out = append(out, reaction{Emoji: cmp.Or(emoji[content], content)})
		}
		out[i].Count++
		out[i].Who = strings.TrimPrefix(out[i].Who+", "+user, ", ")
	}
	return out
}

type page struct {
	Res            *Result
	IssueBody      template.HTML
	IssueReactions []reaction
	Thread         []entry
	PRBody         template.HTML
	PRThread       []entry // the pull request's conversation
	Files          []diffFile
	Adds           int
	Dels           int
	Session        []sessionStage // the run's session, by stage
}

// Render is the result as one self-contained HTML page: the issue's
// conversation, the pull request and its diff, under a notice that the
// model's answers were scripted.
func Render(res *Result) ([]byte, error) {
	p := page{Res: res, Files: splitDiff(res.Diff), IssueReactions: reactionsOf(res.Issue.Reactions), Session: timeline(res.Session, res.Forge)}
	md := newMarkdown(map[int]string{res.Issue.Number: "#issue", res.PR.Number: "#pr"})
	var err error
	if p.IssueBody, err = renderMarkdown(md, res.Issue.Body); err != nil {
		return nil, err
	}
	if p.PRBody, err = renderMarkdown(md, res.PR.Body); err != nil {
		return nil, err
	}
	if p.Thread, err = entries(md, res.BotLogin, res.Comments); err != nil {
		return nil, err
	}
	if p.PRThread, err = entries(md, res.BotLogin, res.PRComments); err != nil {
		return nil, err
	}
	for _, f := range p.Files {
		p.Adds += f.Adds
		p.Dels += f.Dels
	}
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("render page: %w", err)
	}
	return b.Bytes(), nil
}

// entries renders a conversation's comments.
func entries(md goldmark.Markdown, bot string, comments []ghtest.Comment) ([]entry, error) {
	var out []entry
	for _, c := range comments {
		body, err := renderMarkdown(md, c.Body)
		if err != nil {
			return nil, err
		}
		e := entry{ID: c.ID, User: c.User, Bot: c.User == bot, Edited: c.Edits > 0, Body: body,
			Reactions: reactionsOf(c.Reactions)}
		if m, ok := ghtext.ParseMarker(c.Body); ok && e.Bot {
			e.Kind = m.Kind
		}
		out = append(out, e)
	}
	return out, nil
}

// Handler serves page at / (and nothing else) to a browser.
func Handler(page []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		_, _ = w.Write(page)
	})
	return mux
}
