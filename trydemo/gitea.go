package trydemo

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/internal/tb"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// giteaBot is the bot's user on the fake Gitea: Gitea has no Apps, the
// bot is a user with an access token (docs/gitea.md).
const giteaBot = "issuesmith"

// giteaDemo is a run's Gitea side: the fake Gitea (gitea/giteatest, which
// checks every request against Gitea's swagger description) in place of
// the fake GitHub, the same git server and model, and bot serve serving
// that Gitea server alone (no GitHub App settings at all).
type giteaDemo struct {
	fg    *giteatest.Server
	git   *gittest.Server
	model *llmtest.Server
	addr  string
	issue int
	// cloneURL is the repository's on the git server, which the fake
	// reports as Gitea's.
	cloneURL string
	token    string // the bot user's, for git and the API (never shown)
	step     func(string)
	now      string // the progress comment's "Now:" line last reported
	s        tb.TB
}

// setUpGitea starts the fake Gitea beside the git server that holds the
// sample, with its issue filed by person, the bot's user an administrator
// of the repository (Gitea answers the permission endpoint only to one),
// and writes bot serve's Gitea settings, to listen on addr.
func setUpGitea(s *tb.Session, step func(string), scriptText []byte, cache, addr string) (*giteaDemo, *config.Server, error) {
	g := &giteaDemo{step: step, s: s, addr: addr}
	g.fg = giteatest.New(s, giteatest.Options{})
	g.git = gittest.NewServer(s, gittest.WithTokenCheck(func(tok string) bool { return g.fg.CanPush(owner, name, tok) }))
	g.cloneURL = g.git.Seed(s, owner+"/"+name, sampleFiles)
	g.fg.AddRepo(giteatest.Repo{Owner: owner, Name: name, CloneURL: g.cloneURL})
	g.fg.SetRefResolver(func(o, n, ref string) string { return g.git.Head(s, o+"/"+n, ref) })
	g.fg.SetFile(owner, name, "main", repoConfigPath, sampleFiles[repoConfigPath])
	g.token = g.fg.AddToken(giteaBot, "write:repository", "write:issue", "read:user")
	g.fg.SetPermission(owner, name, giteaBot, "admin")
	g.fg.SetPermission(owner, name, person, "write")
	g.issue = g.fg.AddIssue(owner, name, giteatest.Issue{Title: issueTitle, Body: issueBody, User: person})
	script, err := llmtest.ParseScript(scriptText)
	if err != nil {
		return nil, nil, err
	}
	g.model = llmtest.NewServer(s, script, llmtest.WithModels(modelName))
	step(fmt.Sprintf("fake Gitea, git server and scripted model on loopback; %s/%s#%d filed by %s", owner, name, g.issue, person))
	tokenFile := filepath.Join(s.Dir(), "gitea-token")
	if err := os.WriteFile(tokenFile, []byte(g.token+"\n"), 0o600); err != nil {
		return nil, nil, err
	}
	env := append(serveEnv(s, cache, g.model.URL()),
		"ISSUESMITH_GITEA_URL="+g.fg.URL(), "ISSUESMITH_GITEA_TOKEN_FILE="+tokenFile,
		"ISSUESMITH_GITEA_WEBHOOK_SECRET="+webhookSecret)
	cfg, err := config.ParseServer(env)
	return g, cfg, err
}

// play does what the person does on Gitea — label the issue, read the spec
// and plan, tick the plan's approval box in its comment — each reaching
// the server as Gitea's signed delivery, then plays CI on the WIP: pull
// request the bot opens (giteaCI).
func (g *giteaDemo) play(ctx context.Context) (*Result, error) {
	if err := pollReady(ctx, g.addr); err != nil {
		return nil, err
	}
	g.fg.AddLabel(owner, name, g.issue, trigger)
	if err := g.deliver(ctx, "issues", "issue_label", g.labeled()); err != nil {
		return nil, err
	}
	g.step(person + " labelled the issue " + trigger + " (Gitea sent issue_label with the issue's labels)")
	if err := g.wait(ctx, "the spec and the plan", func() bool {
		return strings.Contains(g.progress(), "issuesmith: waiting for you")
	}); err != nil {
		return nil, err
	}
	g.step("the bot posted the spec and the plan and waits for approval")
	plan, err := g.plan()
	if err != nil {
		return nil, err
	}
	approved := strings.Replace(plan.Body, approveBox, strings.Replace(approveBox, "[ ]", "[x]", 1), 1)
	was := g.fg.EditComment(owner, name, plan.ID, approved)
	if err := g.deliver(ctx, "issue_comment", "issue_comment", g.edited(plan.ID, approved, was)); err != nil {
		return nil, err
	}
	g.step(person + " ticked Approve and implement in the plan comment; the coder writes the change, then go build and go vet check it in the sandbox")
	if err := g.wait(ctx, "the pull request", func() bool {
		return strings.Contains(g.progress(), "issuesmith: done") && len(g.fg.Pulls(owner, name)) == 1
	}); err != nil {
		return nil, err
	}
	pr := g.fg.Pulls(owner, name)[0]
	g.step(fmt.Sprintf("the bot pushed %s and opened pull request #%d, %q (WIP: is Gitea's draft)", pr.Head, pr.Number, pr.Title))
	if pr, err = g.ci(ctx, pr); err != nil {
		return nil, err
	}
	return g.result(ctx, pr)
}

// approveBox is the plan comment's approval, as the bot writes it.
const approveBox = "- [ ] **Approve and implement**"

// plan is the bot's plan comment, with its approval box unticked.
func (g *giteaDemo) plan() (giteatest.Comment, error) {
	for _, c := range g.fg.Comments(owner, name, g.issue) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == giteaBot && m.Kind == "plan" {
			if !strings.Contains(c.Body, approveBox) {
				return c, fmt.Errorf("the plan comment has no %q to tick:\n%s", approveBox, c.Body)
			}
			return c, nil
		}
	}
	return giteatest.Comment{}, fmt.Errorf("the bot wrote no plan comment; the progress comment says:\n%s", g.progress())
}

// deliver sends one delivery signed as Gitea does and wants it accepted.
func (g *giteaDemo) deliver(ctx context.Context, event, eventType string, payload []byte) error {
	st, body, err := giteatest.Deliver(ctx, "http://"+g.addr+"/webhook/gitea", webhookSecret,
		giteatest.Delivery{Event: event, EventType: eventType, Payload: payload})
	if err != nil {
		return err
	}
	if st != http.StatusAccepted {
		return fmt.Errorf("the %s delivery was answered %d, not 202 Accepted: %s", eventType, st, body)
	}
	return nil
}

// progress is the bot's progress comment ("" before it exists).
func (g *giteaDemo) progress() string { return g.botComment(g.issue, "progress") }

// botComment is the bot's comment of kind on number ("" when none).
func (g *giteaDemo) botComment(number int, kind string) string {
	for _, c := range g.fg.Comments(owner, name, number) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == giteaBot && m.Kind == kind {
			return c.Body
		}
	}
	return ""
}

// wait returns once cond holds, checked each time the fake Gitea served a
// request (giteatest.Wait: the bot's every step is a request to it),
// telling the bot's steps from its progress comment on the way; it fails
// when the run stops or ctx ends, with the progress comment.
func (g *giteaDemo) wait(ctx context.Context, what string, cond func() bool) error {
	stopped := false
	held := g.fg.Wait(ctx, func() bool {
		p := g.progress()
		if now := nowLine(p); now != "" && now != g.now {
			g.now = now
			g.step("  bot: " + now)
		}
		stopped = strings.Contains(p, "issuesmith: stopped")
		return stopped || cond()
	})
	switch {
	case stopped:
		return fmt.Errorf("the run stopped while waiting for %s:\n%s", what, g.progress())
	case !held:
		return fmt.Errorf("waiting for %s: %w; the progress comment says:\n%s", what, ctx.Err(), g.progress())
	}
	return nil
}

// pollReady waits for bot serve's /readyz: its readiness is no fake's
// state, so it is asked every 25 ms.
func pollReady(ctx context.Context, addr string) error {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for bot serve to be ready: %w", ctx.Err())
		case <-t.C:
		}
	}
}
