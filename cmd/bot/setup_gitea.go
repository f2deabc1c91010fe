package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/gitea"
)

// giteaSetup are `bot setup --forge gitea`'s own flags.
type giteaSetup struct {
	url, tokenFile string
	repos          []string
}

// giteaEnvFile is what setup --forge gitea writes into --out.
const giteaEnvFile = "gitea.env"

// giteaHookEvents are the deliveries the bot reads ("issues" and
// "pull_request" include their comment, label and review events).
var giteaHookEvents = []string{"issues", "pull_request", "status", "push"}

// runSetupGitea checks the token (it names a user; it has the scopes the
// bot uses), checks that the user administers each repository (Gitea
// answers the permission and hooks endpoints only to one), makes each
// repository's webhook with one generated secret, and writes gitea.env
// for `bot serve` (ISSUESMITH_CONFIG_FILE). It says what is missing, each
// problem once, and changes nothing on a repository it cannot serve.
func runSetupGitea(ctx context.Context, out io.Writer, o setupOptions) error {
	g := o.gitea
	switch {
	case g.url == "" || g.tokenFile == "" || len(g.repos) == 0:
		return usageErr("setup --forge gitea: --gitea-url, --token-file and at least one --repo are required")
	case o.webhookURL == "":
		return usageErr("setup --forge gitea: --webhook-url is required: your server's address + /webhook/gitea")
	}
	tokenFile, err := filepath.Abs(g.tokenFile)
	if err != nil {
		return err
	}
	cfg := config.Server{GiteaURL: g.url, GiteaTokenFile: tokenFile}
	token, err := cfg.GiteaToken()
	if err != nil {
		return usageErr("setup: %v", err)
	}
	c, err := gitea.New(g.url, token, gitea.Options{})
	if err != nil {
		return usageErr("setup: %v", err)
	}
	me, err := c.Self(ctx)
	if err != nil {
		return fmt.Errorf("the token does not sign in at %s (it needs the read:user scope): %w", g.url, err)
	}
	version, _ := c.Version(ctx)
	fmt.Fprintf(out, "Gitea %s at %s: the bot acts as %s\n", version, g.url, me.Login)
	secret, err := giteaSecret(o.out)
	if err != nil {
		return err
	}
	var problems []string
	for _, full := range g.repos {
		if p := setupGiteaRepo(ctx, out, c, me.Login, full, o.webhookURL, secret); p != "" {
			problems = append(problems, p)
		}
	}
	path := filepath.Join(o.out, giteaEnvFile)
	env := fmt.Sprintf("ISSUESMITH_GITEA_URL=%s\nISSUESMITH_GITEA_TOKEN_FILE=%s\nISSUESMITH_GITEA_WEBHOOK_SECRET=%s\n",
		g.url, tokenFile, secret)
	if err := os.WriteFile(path, []byte(env), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s (mode 0600): add its lines to the file ISSUESMITH_CONFIG_FILE names\n", path)
	if len(problems) > 0 {
		return errors.New("setup --forge gitea:\n  " + strings.Join(problems, "\n  "))
	}
	return nil
}

// setupGiteaRepo checks one repository and makes its webhook; it returns
// the problem that stopped it ("" when none).
func setupGiteaRepo(ctx context.Context, out io.Writer, c *gitea.Client, bot, full, hookURL, secret string) string {
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" {
		return fmt.Sprintf("%s: not owner/name", full)
	}
	r, err := c.Repository(ctx, owner, name)
	if err != nil {
		return fmt.Sprintf("%s: %v", full, err)
	}
	if !r.Permissions.Admin {
		return fmt.Sprintf("%s: make %s an administrator of the repository (Settings → Collaborators → Administrator): "+
			"Gitea answers the permission endpoint, which tells the bot who may ask it for work, and the webhooks API only to one", full, bot)
	}
	// write:issue: an edit of comment 0 passes Gitea's scope check and
	// then finds no comment; without the scope Gitea names the scope
	// missing (403).
	if _, err := c.EditComment(ctx, owner, name, 0, "scope probe"); errors.Is(err, gitea.ErrForbidden) {
		return fmt.Sprintf("%s: the token cannot write issues and comments: %v", full, err)
	}
	hooks, err := c.Hooks(ctx, owner, name)
	if err != nil {
		return fmt.Sprintf("%s: the token cannot read webhooks (it needs write:repository): %v", full, err)
	}
	for _, h := range hooks {
		if h.Config["url"] == hookURL {
			fmt.Fprintf(out, "%s: a webhook to %s is already there (id %d); Gitea never shows its secret: delete it and run setup again to make one with this secret\n",
				full, hookURL, h.ID)
			return ""
		}
	}
	h, err := c.CreateHook(ctx, owner, name, gitea.NewHook{Type: "gitea", Active: true, Events: giteaHookEvents,
		BranchFilter: "*", Config: map[string]string{"url": hookURL, "content_type": "json", "secret": secret}})
	if err != nil {
		return fmt.Sprintf("%s: make the webhook: %v", full, err)
	}
	fmt.Fprintf(out, "%s: webhook %d sends %s to %s\n", full, h.ID, strings.Join(giteaHookEvents, ", "), hookURL)
	return ""
}

// giteaSecret is the webhooks' secret: the one a gitea.env in dir already
// holds (so the repositories of an earlier setup keep working), else a new
// random one.
func giteaSecret(dir string) (string, error) {
	if b, err := os.ReadFile(filepath.Join(dir, giteaEnvFile)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "ISSUESMITH_GITEA_WEBHOOK_SECRET="); ok && v != "" {
				return v, nil
			}
		}
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
