package trydemo

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/work"
)

// The demo runs the real flow: the sample issue ends in a pull request
// whose branch, on the real git server, holds what the scripted coder
// wrote, after the bot's own spec, plan and progress comments; the
// repository's CI fails on it, the bot's CI fix round pushes a fix, CI
// passes and the draft is marked ready for review. Every scripted answer
// was asked for, and no fake complained.
func TestRunEndsInAPullRequestReadyForReview(t *testing.T) {
	var logs bytes.Buffer
	var steps []string
	res, err := Run(t.Context(), Options{Dir: t.TempDir(), Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Progress: func(ev work.Event) { steps = append(steps, ev.Detail) }, CacheDir: t.TempDir()}) // empty caches: the first run's build
	require.NoError(t, err, "server log:\n%s", logs.String())

	require.Equal(t, "octo-org/units", res.Repo)
	require.Equal(t, 2, res.PR.Number)
	require.False(t, res.PR.Draft, "CI passed: ready for review")
	require.Equal(t, "issuesmith/issue-1", res.PR.Head)
	require.Equal(t, "main", res.PR.Base)
	require.Equal(t, res.BotLogin, res.PR.User)
	require.Contains(t, res.PR.Body, "Fixes #1")
	require.Contains(t, res.PR.Body, "`go build .` passed", "the coder's validation really ran")
	require.Contains(t, res.Diff, "+func FahrenheitToCelsius(f float64) float64 {\n+\treturn (f - 32) * 5 / 9\n+}\n")
	require.Contains(t, res.Diff, "+func TestRoundTrip(t *testing.T) {")
	require.Contains(t, res.Diff, "+		if got := FahrenheitToCelsius(CelsiusToFahrenheit(c)); math.Abs(got-c) > 1e-9 {", "the CI fix")
	require.Equal(t, 7, res.Exchanges, "every answer of script.yaml, none twice")
	require.Len(t, res.PRComments, 1)
	ci := res.PRComments[0].Body
	require.Contains(t, ci, "**Round 1**: `test (go 1.22)` failed on ")
	require.Contains(t, ci, "(changed `temp_test.go`)")
	require.Contains(t, ci, "The pull request is marked ready for review.")

	kinds := map[string]string{}
	for _, c := range res.Comments {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == res.BotLogin {
			kinds[m.Kind] = c.Body
		}
	}
	require.Contains(t, kinds["spec"], "Convert Fahrenheit back to Celsius")
	require.Contains(t, kinds["plan"], "Add TestRoundTrip converting a few temperatures there and back")
	require.Contains(t, kinds["progress"], "issuesmith: done")
	require.Equal(t, "/implement", res.Comments[len(res.Comments)-1].Body, "the person's approval")
	require.NotContains(t, res.Issue.Labels, trigger, "the bot took its label off")
	var demoSteps, bot []string
	for _, s := range steps {
		if rest, ok := strings.CutPrefix(s, "  bot: "); ok {
			bot = append(bot, rest)
		} else {
			demoSteps = append(demoSteps, s)
		}
	}
	require.Len(t, demoSteps, 8, "the demo's own steps")
	require.NotEmpty(t, bot, "the bot's steps, from its progress comment, between them")
	require.NotEmpty(t, res.issued)

	// bot serve recorded the run: its stages, the CI fix round among them.
	require.NotNil(t, res.Session)
	require.Equal(t, store.StateDone, res.Session.Session.State)
	var stages []string
	for _, st := range timeline(res.Session, res.Forge) {
		stages = append(stages, st.Name)
	}
	require.Equal(t, []string{"explore", "plan", "code", "ci 1"}, stages)

	// The page: the notice, the spec, the plan, the progress, the pull
	// request and its diff; no secret and no hidden marker.
	page, err := Render(res)
	require.NoError(t, err)
	html := string(page)
	for _, want := range []string{
		`<div class="notice" id="scripted">`, "This is a demo: the model's answers are scripted.",
		"<h2>Spec: Convert Fahrenheit back to Celsius</h2>",
		"<strong>Approve and implement</strong>",
		"Add TestRoundTrip converting a few temperatures there and back",
		`<input checked="" disabled="" type="checkbox"`,
		"issuesmith: done",
		`<span title="issuesmith[bot]">👀 1</span>`, // the bot saw the label
		`<p>Fixes <a href="#issue" rel="nofollow">#1</a></p>`, `→ <a href="#pr" rel="nofollow">#2</a>`,
		`<a href="#issuecomment-`, // the progress comment's links to the spec and the plan
		"Pull request #2: Convert Fahrenheit back to Celsius", `<span class="state open">Open</span>`,
		"<h3>CI on this pull request</h3>", `<span class="badge kind">ci</span>`,
		`<tr class="add"><td>&#43;func FahrenheitToCelsius(f float64) float64 {</td></tr>`,
		`<tr class="del"><td>-import &#34;testing&#34;</td></tr>`,
		`<header>temp.go <span class="stat">+6</span> <span class="stat-del">−0</span></header>`,
		`<a href="#session">View session</a>`, `<h2 id="session">Session: what the bot did</h2>`,
		"<summary><b>ci 1</b>", "GitHub: pull request #2",
	} {
		require.Contains(t, html, want)
	}
	// Every link on the page leads somewhere on the page.
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(html, -1) {
		require.Contains(t, html, `id="`+m[1]+`"`, "a link to #%s", m[1])
	}
	for _, secret := range append(res.issued, webhookSecret, "PRIVATE KEY", "<!-- issuesmith:", "<script") {
		require.NotContains(t, html, secret)
		require.NotContains(t, logs.String(), secret)
	}
}

// A model answer the script does not have stops the run with the bot's own
// explanation, and the unexpected request is reported: the demo cannot
// pass without the real workflow doing each step.
func TestRunFailsWhenTheScriptRunsOut(t *testing.T) {
	cut := bytes.Index(scriptYAML, []byte("- name: coder temp_test.go"))
	require.Positive(t, cut)
	_, err := Run(t.Context(), Options{Dir: t.TempDir(), script: scriptYAML[:cut]})
	require.Error(t, err)
	require.Contains(t, err.Error(), "the run stopped while waiting for the pull request")
	require.Contains(t, err.Error(), "issuesmith: stopped")
	require.Contains(t, err.Error(), "llmtest: unexpected request")
}

// The payloads are GitHub's published examples, the same bytes as
// webhook/testdata's copies.
func TestPayloadsAreTheOctokitExamples(t *testing.T) {
	files, err := payloads.ReadDir("payloads")
	require.NoError(t, err)
	require.Len(t, files, 4)
	for _, f := range files {
		ours, err := payloads.ReadFile("payloads/" + f.Name())
		require.NoError(t, err)
		theirs, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", f.Name()))
		require.NoError(t, err)
		require.Equal(t, string(theirs), string(ours), f.Name())
	}
}

// Comments are rendered as GitHub does (task lists, tables, <details>) and
// sanitized: a script or an event handler in a comment never reaches the
// page.
func TestRenderMarkdownSanitizes(t *testing.T) {
	got, err := renderMarkdown(newMarkdown(nil), "- [x] done\n- [ ] not yet\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"+
		"<details><summary>More</summary>\n\nhidden\n</details>\n\n<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n")
	require.NoError(t, err)
	s := string(got)
	require.Contains(t, s, `<input checked="" disabled="" type="checkbox"`)
	require.Contains(t, s, "<table>")
	require.Contains(t, s, "<details><summary>More</summary>")
	require.NotContains(t, s, "<script")
	require.NotContains(t, s, "onerror")
}

func TestHandlerServesOnlyThePage(t *testing.T) {
	srv := httptest.NewServer(Handler([]byte("<p>page</p>")))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"))
	resp, err = http.Get(srv.URL + "/etc/passwd")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestReactionsGroupAsGitHubShowsThem(t *testing.T) {
	require.Equal(t, []reaction{{"👀", 2, "a, c"}, {"👍", 1, "b"}, {"new", 1, "d"}},
		reactionsOf([]string{"a:eyes", "b:+1", "c:eyes", "d:new"}))
	require.Empty(t, reactionsOf(nil))
}

// "#N" links to the page's issue or pull request as GitHub links it; other
// numbers, words and code stay as they are.
func TestReferencesLinkToThePage(t *testing.T) {
	md := newMarkdown(map[int]string{1: "#issue", 2: "#pr"})
	got, err := renderMarkdown(md, "Fixes #1, see #2 (#3). Not a#1, #1x, `#2` or &#35;.")
	require.NoError(t, err)
	require.Equal(t, `<p>Fixes <a href="#issue" rel="nofollow">#1</a>, see <a href="#pr" rel="nofollow">#2</a> (#3). `+
		"Not a#1, #1x, <code>#2</code> or #.</p>\n", string(got))
}
