package trydemo

import (
	"bytes"
	"context"
	"log/slog"
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

// The Gitea demo runs the same flow on the fake Gitea, bot serve serving
// it alone: the label and the plan's ticked approval reach it as Gitea's
// signed deliveries, the bot's comments and its WIP: pull request are on
// the fake, CI's commit statuses fail and then pass, and the page is
// rendered from the fake Gitea's state.
func TestRunOnGiteaEndsInAPullRequestReadyForReview(t *testing.T) {
	var logs bytes.Buffer
	var steps []string
	res, err := Run(t.Context(), Options{Dir: t.TempDir(), Log: slog.New(slog.NewTextHandler(&logs, nil)), Forge: ForgeGitea,
		Progress: func(ev work.Event) { steps = append(steps, ev.Detail) }, CacheDir: t.TempDir()})
	require.NoError(t, err, "server log:\n%s", logs.String())

	require.Equal(t, "Gitea", res.Forge)
	require.Equal(t, "octo-org/units", res.Repo)
	require.Equal(t, giteaBot, res.BotLogin)
	require.Equal(t, 2, res.PR.Number)
	require.Equal(t, "Convert Fahrenheit back to Celsius", res.PR.Title, "CI passed: WIP: taken off")
	require.False(t, res.PR.Draft)
	require.Equal(t, "issuesmith/issue-1", res.PR.Head)
	require.Equal(t, giteaBot, res.PR.User)
	require.Contains(t, res.PR.Body, "Fixes #1")
	require.Contains(t, res.Diff, "+func FahrenheitToCelsius(f float64) float64 {\n+\treturn (f - 32) * 5 / 9\n+}\n")
	require.Contains(t, res.Diff, "math.Abs(got-c) > 1e-9", "the CI fix")
	require.Equal(t, 7, res.Exchanges, "every answer of script.yaml, none twice")
	require.Len(t, res.PRComments, 1)
	require.Contains(t, res.PRComments[0].Body, "(changed `temp_test.go`)")
	require.Contains(t, res.PRComments[0].Body, "The pull request is marked ready for review.")

	kinds := map[string]string{}
	edits := map[string]int{}
	for _, c := range res.Comments {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == giteaBot {
			kinds[m.Kind], edits[m.Kind] = c.Body, c.Edits
		}
	}
	require.Contains(t, kinds["spec"], "Convert Fahrenheit back to Celsius")
	require.Contains(t, kinds["plan"], "- [x] **Approve and implement**", "the person's approval")
	require.Positive(t, edits["plan"])
	require.Contains(t, kinds["progress"], "issuesmith: done")
	require.NotContains(t, res.Issue.Labels, trigger, "the bot took its label off")
	require.Equal(t, store.StateDone, res.Session.Session.State)
	var demoSteps []string
	for _, s := range steps {
		if !strings.HasPrefix(s, "  bot: ") {
			demoSteps = append(demoSteps, s)
		}
	}
	require.Len(t, demoSteps, 8, "the demo's own steps")
	require.Contains(t, demoSteps[0], "fake Gitea")

	page, err := Render(res)
	require.NoError(t, err)
	html := string(page)
	for _, want := range []string{
		"This is a demo: the model's answers are scripted.", "against an in-process fake Gitea\n",
		"Gitea's deliveries were made from ones a real Gitea 1.26 sent", "from the fake Gitea's state",
		"Gitea: pull request #2", "Gitea: plan comment #1",
		"<h2>Spec: Convert Fahrenheit back to Celsius</h2>", `<input checked="" disabled="" type="checkbox"`,
		"issuesmith: done", `<b>issuesmith</b> <span class="badge">bot</span> <span class="badge kind">plan</span> commented · edited`,
		"Pull request #2: Convert Fahrenheit back to Celsius", `<span class="state open">Open</span>`,
		`<p>Fixes <a href="#issue" rel="nofollow">#1</a></p>`, `<span class="badge kind">ci</span>`,
		`<tr class="add"><td>&#43;func FahrenheitToCelsius(f float64) float64 {</td></tr>`,
		`<h2 id="session">Session: what the bot did</h2>`, "<summary><b>ci 1</b>",
	} {
		require.Contains(t, html, want)
	}
	require.NotContains(t, html, "fake GitHub")
	require.NotContains(t, html, "GitHub: ")
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(html, -1) {
		require.Contains(t, html, `id="`+m[1]+`"`, "a link to #%s", m[1])
	}
	for _, secret := range append(res.issued, webhookSecret, "<!-- issuesmith:", "<script") {
		require.NotContains(t, html, secret)
		require.NotContains(t, logs.String(), secret)
	}
}

// The Gitea demo has no sessions page (its sign-in is GitHub's), and a
// forge it does not know is refused before anything starts.
func TestRunRefusesWhatItCannotPlay(t *testing.T) {
	_, err := Run(t.Context(), Options{Forge: ForgeGitea, Sessions: func(context.Context, *Result) error { return nil }})
	require.ErrorContains(t, err, "GitHub demo only")
	_, err = Run(t.Context(), Options{Forge: "gitlab"})
	require.ErrorContains(t, err, `forge "gitlab"`)
}

// The Gitea payloads are a real Gitea's recorded deliveries, the same
// bytes as webhook/testdata/gitea's.
func TestGiteaPayloadsAreTheRecordedOnes(t *testing.T) {
	files, err := giteaPayloads.ReadDir("payloads/gitea")
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		ours, err := giteaPayloads.ReadFile("payloads/gitea/" + f.Name())
		require.NoError(t, err)
		theirs, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "gitea", f.Name()))
		require.NoError(t, err)
		require.Equal(t, string(theirs), string(ours), f.Name())
	}
}
