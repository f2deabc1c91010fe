package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteaserver"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/webhook"
)

// giteaE2E is the Gitea side of an end-to-end run: a real Gitea server,
// the person alice (who owns the repository and acts in it), and the bot's
// user issuesmith (a repository administrator: Gitea answers the
// permission endpoint only to one).
type giteaE2E struct {
	*e2e
	srv   *giteaserver.Server
	alice string // alice's token
	bot   *gitea.Client
	issue int
}

const e2eGiteaSecret = "gitea-webhook-secret"

func newGiteaE2E(t *testing.T, modelURL string) *giteaE2E {
	t.Helper()
	srv := giteaserver.Start(t)
	g := &giteaE2E{e2e: newE2E(t, modelURL), srv: srv}
	g.alice = srv.User("alice", "write:repository,write:issue,write:user")
	botToken := srv.User("issuesmith", "write:repository,write:issue,read:user")
	g.bot = srv.Client(botToken)
	srv.Repo(g.alice, "alice", "hello", map[string]string{
		"README.md":              "# Hello\n\nA greeting library.\n",
		"greet.go":               "package greet\n\n// Hello returns a greeting.\nfunc Hello() string {\n\treturn \"hello\"\n}\n",
		".github/issuesmith.yml": "version: 1\ndraft: true\nci:\n  fix_rounds: 2\n  ready_when_green: true\n",
	})
	srv.API(g.alice, "PUT", "/repos/alice/hello/collaborators/issuesmith", map[string]any{"permission": "admin"}, nil)
	srv.Label(g.alice, "alice", "hello", "bug")
	srv.Label(g.alice, "alice", "hello", "issuesmith")
	g.issue = srv.Issue(g.alice, "alice", "hello", "Greet people by name", "Hello() should take the name of the person to greet.")
	srv.API(g.alice, "POST", "/repos/alice/hello/hooks", map[string]any{"type": "gitea", "active": true,
		"events": []string{"issues", "pull_request", "status"}, // no push: a refresh would ask the model for summaries the script does not play
		"config": map[string]string{"url": "http://" + g.addr + "/webhook/gitea", "content_type": "json", "secret": e2eGiteaSecret}}, nil)
	tokenFile := filepath.Join(t.TempDir(), "gitea-token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(botToken+"\n"), 0o600))
	g.env = append(g.env, "ISSUESMITH_GITEA_URL="+srv.URL, "ISSUESMITH_GITEA_TOKEN_FILE="+tokenFile,
		"ISSUESMITH_GITEA_WEBHOOK_SECRET="+e2eGiteaSecret)
	return g
}

// labels sets the issue's labels as alice, by name (Gitea sends
// issue_label with the labels as they are now).
func (g *giteaE2E) labels(names ...string) {
	g.t.Helper()
	g.srv.API(g.alice, "PUT", fmt.Sprintf("/repos/alice/hello/issues/%d/labels", g.issue), map[string]any{"labels": names}, nil)
}

// comments are the bot's comments on number by marker kind.
func (g *giteaE2E) comments(number int) map[string][]gitea.Comment {
	cs, err := g.bot.IssueComments(g.t.Context(), "alice", "hello", number)
	require.NoError(g.t, err)
	out := map[string][]gitea.Comment{}
	for _, c := range cs {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User.Login == "issuesmith" {
			out[m.Kind] = append(out[m.Kind], c)
		}
	}
	return out
}

// until polls Gitea (another process: no event of ours marks its state)
// until cond holds, for at most d.
func (g *giteaE2E) until(d time.Duration, what string, cond func() bool, last func() string) {
	g.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			g.t.Fatalf("not within %s: %s; last:\n%s", d, what, last())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (g *giteaE2E) progress() string {
	if c := g.comments(g.issue)["progress"]; len(c) > 0 {
		return c[len(c)-1].Body
	}
	return ""
}

func (g *giteaE2E) waitProgress(want string) {
	g.t.Helper()
	g.until(90*time.Second, "progress comment says "+want, func() bool { return strings.Contains(g.progress(), want) }, g.progress)
}

// approveToPR makes alice's edit of the plan comment (editPlan: a step
// removed, one reworded, the box ticked) in Gitea, waits for the run to
// end and returns its one pull request.
func (g *giteaE2E) approveToPR() gitea.PullRequest {
	g.t.Helper()
	plan := g.comments(g.issue)["plan"][0]
	g.srv.API(g.alice, "PATCH", fmt.Sprintf("/repos/alice/hello/issues/comments/%d", plan.ID),
		map[string]any{"body": editPlan(g.t, plan.Body)}, nil)
	g.waitProgress("issuesmith: done")
	prs, err := g.bot.PullRequests(g.t.Context(), "alice", "hello", "all")
	require.NoError(g.t, err)
	require.Len(g.t, prs, 1)
	return prs[0]
}

// TestEndToEndGitea drives the whole journey on a real Gitea server by its
// own signed webhooks: label → spec and plan comments → the plan edited
// and approved in Gitea → branch pushed and a draft (WIP:) PR → a review
// that mentions the bot → a follow-up commit → a failing commit status →
// the CI fix round → a passing status → ready (the prefix removed).
func TestEndToEndGitea(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/gitea.yaml"))
	g := newGiteaE2E(t, model.URL())
	g.start()
	ctx := t.Context()

	g.unknownRepository()
	g.labels("bug") // another label: nothing starts
	g.labels("bug", "issuesmith")
	g.waitProgress("waiting for you")
	require.NotEmpty(t, g.comments(g.issue)["spec"])
	pr := g.approveToPR()
	require.True(t, strings.HasPrefix(pr.Title, "WIP: "), pr.Title)
	require.Equal(t, "issuesmith", pr.User.Login)
	require.Contains(t, pr.Body, fmt.Sprintf("Fixes #%d", g.issue))
	src, err := g.bot.RawFile(ctx, "alice", "hello", "greet.go", pr.Head.Ref)
	require.NoError(t, err)
	require.Contains(t, string(src), `return "hello, " + name`)
	is, err := g.bot.Issue(ctx, "alice", "hello", g.issue)
	require.NoError(t, err)
	for _, l := range is.Labels {
		require.NotEqual(t, "issuesmith", l.Name, "the trigger label is reset once the PR is open")
	}

	// A review whose only words are a comment on a line of greet.go: Gitea's
	// delivery carries neither, the bot reads them.
	g.srv.API(g.alice, "POST", fmt.Sprintf("/repos/alice/hello/pulls/%d/reviews", pr.Number),
		map[string]any{"body": "", "event": "COMMENT", "comments": []map[string]any{{"path": "greet.go", "new_position": 3,
			"body": "@issuesmith please document the name parameter"}}}, nil)
	g.until(90*time.Second, "the review's commit", func() bool {
		b, err := g.bot.RawFile(ctx, "alice", "hello", "greet.go", pr.Head.Ref)
		return err == nil && strings.Contains(string(b), "// Hello returns a greeting for name.")
	}, g.progress)
	g.until(30*time.Second, "the reply to the review", func() bool {
		return strings.Contains(fmt.Sprint(g.comments(pr.Number)), "> @alice: On greet.go line 3: @issuesmith please document")
	}, func() string { return fmt.Sprint(g.comments(pr.Number)) })

	cur, err := g.bot.PullRequest(ctx, "alice", "hello", pr.Number)
	require.NoError(t, err)
	head := cur.Head.SHA
	g.srv.API(g.alice, "POST", "/repos/alice/hello/statuses/"+cur.Base.SHA,
		map[string]any{"state": "success", "context": "test", "description": "ok"}, nil)
	g.srv.API(g.alice, "POST", "/repos/alice/hello/statuses/"+head,
		map[string]any{"state": "failure", "context": "test",
			"description": `TestHello: Hello("Ada") = "hello, Ada", want "Hello, Ada"`}, nil)
	var fixed string
	g.until(90*time.Second, "the CI fix commit", func() bool {
		p, err := g.bot.PullRequest(ctx, "alice", "hello", pr.Number)
		if err != nil || p.Head.SHA == head {
			return false
		}
		fixed = p.Head.SHA
		b, err := g.bot.RawFile(ctx, "alice", "hello", "greet.go", pr.Head.Ref)
		return err == nil && strings.Contains(string(b), `return "Hello, " + name`)
	}, func() string { return fmt.Sprint(g.comments(pr.Number)) })
	g.srv.API(g.alice, "POST", "/repos/alice/hello/statuses/"+fixed,
		map[string]any{"state": "success", "context": "test", "description": "ok"}, nil)
	g.until(90*time.Second, "the PR marked ready", func() bool {
		p, err := g.bot.PullRequest(ctx, "alice", "hello", pr.Number)
		return err == nil && !strings.HasPrefix(p.Title, "WIP:")
	}, func() string { return fmt.Sprint(g.comments(pr.Number)) })
	require.Zero(t, model.Remaining())
	for kind, cs := range g.comments(pr.Number) {
		t.Logf("PR comment %s:\n%s", kind, cs[len(cs)-1].Body)
	}
	t.Logf("issue progress:\n%s", g.progress())
}

// TestEndToEndGiteaAlone: `bot serve` with no GitHub App at all, serving
// only the Gitea server (its user is the bot): label → plan → approval →
// the draft PR, its commit authored by the bot's Gitea user.
func TestEndToEndGiteaAlone(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/gitea-alone.yaml"))
	g := newGiteaE2E(t, model.URL())
	var env []string
	for _, kv := range g.env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "ISSUESMITH_APP_ID", "ISSUESMITH_PRIVATE_KEY_FILE", "ISSUESMITH_WEBHOOK_SECRET", "ISSUESMITH_BOT_LOGIN":
			continue
		}
		env = append(env, kv)
	}
	g.env = env
	g.start()
	g.labels("issuesmith")
	g.waitProgress("waiting for you")
	pr := g.approveToPR()
	require.True(t, strings.HasPrefix(pr.Title, "WIP: "), pr.Title)
	var commits []struct {
		Commit struct {
			Author struct {
				Name, Email string
			} `json:"author"`
			Message string `json:"message"`
		} `json:"commit"`
	}
	g.srv.API(g.alice, "GET", "/repos/alice/hello/commits?sha="+pr.Head.Ref+"&limit=1", nil, &commits)
	require.NotEmpty(t, commits)
	require.Equal(t, "issuesmith", commits[0].Commit.Author.Name)
	require.Contains(t, commits[0].Commit.Message, "Co-authored-by: alice <alice@noreply.127.0.0.1>")
	require.Zero(t, model.Remaining())
}

// unknownRepository sends, signed with the right secret, Gitea's recorded
// "/plan" comment re-addressed to a repository the server does not have:
// the delivery is accepted (the webhook never calls the forge), and the
// intake job finds that the sender cannot write there and starts nothing.
func (g *giteaE2E) unknownRepository() {
	g.t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "gitea", "issue_comment.created.2.json"))
	require.NoError(g.t, err)
	body := []byte(strings.ReplaceAll(string(raw), `"hello"`, `"nowhere"`))
	require.Contains(g.t, string(body), `"nowhere"`)
	req, err := http.NewRequestWithContext(g.t.Context(), http.MethodPost, "http://"+g.addr+"/webhook/gitea", bytes.NewReader(body))
	require.NoError(g.t, err)
	req.Header.Set("X-Gitea-Event-Type", "issue_comment")
	req.Header.Set("X-Gitea-Delivery", "0d000000-0000-4000-8000-00000000dead")
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(e2eGiteaSecret), body))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(g.t, err)
	require.NoError(g.t, resp.Body.Close())
	require.Equal(g.t, http.StatusAccepted, resp.StatusCode)
	g.until(30*time.Second, "the unknown repository's delivery is done with", func() bool {
		return strings.Contains(g.logText(), `msg="delivery needs nothing" delivery=gitea:0d000000-0000-4000-8000-00000000dead`)
	}, g.logText)
	require.Contains(g.t, g.logText(), "the sender lacks write permission on the repository (alice on alice/nowhere)")
}

func (g *giteaE2E) logText() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.logs.String()
}

// TestEndToEndGiteaPoll: Gitea's webhook never reaches the bot (the
// repository has none); the periodic pass (giteapoll) finds the label and
// the /implement comment and the run goes to its pull request all the same.
func TestEndToEndGiteaPoll(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/gitea-poll.yaml"))
	g := newGiteaE2E(t, model.URL())
	var hooks []struct {
		ID int64 `json:"id"`
	}
	g.srv.API(g.alice, "GET", "/repos/alice/hello/hooks", nil, &hooks)
	for _, h := range hooks {
		g.srv.API(g.alice, "DELETE", fmt.Sprintf("/repos/alice/hello/hooks/%d", h.ID), nil, nil)
	}
	g.env = append(g.env, "ISSUESMITH_REDELIVER=@every 1s")
	g.start()
	g.labels("issuesmith")
	g.waitProgress("waiting for you")
	g.srv.API(g.alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", g.issue),
		map[string]any{"body": "/implement"}, nil)
	g.waitProgress("issuesmith: done")
	prs, err := g.bot.PullRequests(t.Context(), "alice", "hello", "all")
	require.NoError(t, err)
	require.Len(t, prs, 1)
	require.Contains(t, g.logText(), `msg="gitea poll"`)
	require.Zero(t, model.Remaining())
}
