package server

import (
	"context"
	"fmt"
	"net/url"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/issuesmith/issuesmith/workflow/ghport"
	"github.com/issuesmith/issuesmith/workflow/giteaport"
)

// GiteaInstallation is the installation id of the Gitea server in the
// store: GitHub's installation ids are positive, so a negative id is
// never one of them, and each repository is bound to the forge whose
// id it was first worked on under (workflow.Deps.ForgeOf).
const GiteaInstallation int64 = -1

// forgeOf names the forge of an installation id.
func forgeOf(id int64) string {
	if id < 0 {
		return "gitea"
	}
	return "github"
}

// giteaForge is the Gitea server the bot serves beside the GitHub App
// (GITEA_URL), as the user who owns the token.
type giteaForge struct {
	client *gitea.Client
	token  string
	bot    string // the token's user
	host   string
}

// newGitea checks the Gitea settings against the server: the token must
// name a user (GET /user). Nil without GITEA_URL.
func newGitea(ctx context.Context, cfg *config.Server, writeInterval int64) (*giteaForge, error) {
	if cfg.GiteaURL == "" {
		return nil, nil
	}
	token, err := cfg.GiteaToken()
	if err != nil {
		return nil, err
	}
	opts := gitea.Options{}
	if writeInterval < 0 {
		opts.Transport.WriteInterval = -1
	}
	c, err := gitea.New(cfg.GiteaURL, token, opts)
	if err != nil {
		return nil, fmt.Errorf("%sGITEA_URL: %w", config.EnvPrefix, err)
	}
	me, err := c.Self(ctx)
	if err != nil {
		return nil, fmt.Errorf("the Gitea token (%sGITEA_TOKEN_FILE) does not name a user at %s: %w", config.EnvPrefix, cfg.GiteaURL, err)
	}
	u, _ := url.Parse(cfg.GiteaURL)
	return &giteaForge{client: c, token: token, bot: me.Login, host: u.Hostname()}, nil
}

// installations routes each installation id to its forge's client.
func installations(app *ghapp.App, g *giteaForge) workflow.Installations {
	var gh workflow.Installations = workflow.InstallationsFunc(func(_ context.Context, id int64) (workflow.GitHub, error) {
		return nil, fmt.Errorf("installation %d: no GitHub App is configured", id)
	})
	if app != nil {
		gh = ghport.Installations(app)
	}
	if g == nil {
		return gh
	}
	port := giteaport.New(g.client, g.bot)
	return workflow.InstallationsFunc(func(ctx context.Context, id int64) (workflow.GitHub, error) {
		if forgeOf(id) == "gitea" {
			return giteaport.Installations(port, GiteaInstallation).Client(ctx, id)
		}
		return gh.Client(ctx, id)
	})
}

// credentials routes git's tokens and co-author identities the same way.
type credentials struct {
	app   agents.AppCredentials
	gitea *giteaForge
}

func (c credentials) Token(ctx context.Context, id int64) (string, error) {
	if forgeOf(id) == "github" && c.app.App == nil {
		return "", fmt.Errorf("installation %d: no GitHub App is configured", id)
	}
	if forgeOf(id) == "gitea" {
		if c.gitea == nil || id != GiteaInstallation {
			return "", fmt.Errorf("installation %d: no Gitea server is configured for it", id)
		}
		return c.gitea.token, nil
	}
	return c.app.Token(ctx, id)
}

// CoAuthor on Gitea is the person's login at the server's noreply
// address (Gitea's default NO_REPLY_ADDRESS form).
func (c credentials) CoAuthor(ctx context.Context, id int64, owner, repoName, login string) repo.Signature {
	if forgeOf(id) == "gitea" && c.gitea != nil {
		return repo.Signature{Name: login, Email: login + "@noreply." + c.gitea.host}
	}
	if c.app.App == nil {
		return repo.Signature{Name: login, Email: login + "@users.noreply.github.com"}
	}
	return c.app.CoAuthor(ctx, id, owner, repoName, login)
}

// Author on Gitea is the bot's user at the server's noreply address.
func (c credentials) Author(id int64) (repo.Signature, bool) {
	if forgeOf(id) == "gitea" && c.gitea != nil {
		return repo.Signature{Name: c.gitea.bot, Email: c.gitea.bot + "@noreply." + c.gitea.host}, true
	}
	return repo.Signature{}, false
}

// forgeOf is the workflow's Deps.ForgeOf: nil without a Gitea server (one
// forge: no repository to bind, no read per delivery).
func (g *giteaForge) forgeOf() func(int64) string {
	if g == nil {
		return nil
	}
	return forgeOf
}

// botAliases are the bot's logins on the other forges.
func (g *giteaForge) botAliases() []string {
	if g == nil {
		return nil
	}
	return []string{g.bot}
}
