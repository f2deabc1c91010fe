package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

// newGitHubApp is the App's GitHub client, its key checked with GitHub.
func newGitHubApp(ctx context.Context, cfg *config.Server, m *metrics, writeInterval time.Duration) (*ghapp.App, string, error) {
	key, err := cfg.Key()
	if err != nil {
		return nil, "", err
	}
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: cfg.AppID, PrivateKey: key, BaseURL: cfg.GitHubURL,
		BotLogin: cfg.BotLogin, Observe: m.githubCall, WriteInterval: writeInterval})
	if err != nil {
		return nil, "", err
	}
	// GET /app with the App's JWT, even when the bot login is configured:
	// a key GitHub refuses, or an App id that is not this key's, must stop
	// the start, not the first run.
	gh, _, err := app.AppClient().Apps.Get(ctx, "")
	if err != nil {
		return nil, "", fmt.Errorf("check the App's key with GitHub (GET /app; check %sAPP_ID and the private key): %w",
			config.EnvPrefix, err)
	}
	login := gh.GetSlug() + "[bot]"
	if gh.GetSlug() == "" {
		return nil, "", errors.New("check the App's key with GitHub (GET /app): GitHub returned no slug")
	}
	if cfg.BotLogin != "" && !strings.EqualFold(cfg.BotLogin, login) {
		return nil, "", fmt.Errorf("%sBOT_LOGIN is %q but GitHub says this App's bot is %q", config.EnvPrefix, cfg.BotLogin, login)
	}
	return app, login, nil
}

// checkModels asks the model server's GET /models whether each role's
// model is there. A miss is a warning, not a stop (the server may list
// models lazily): it is logged loudly and /readyz shows it.
func checkModels(ctx context.Context, cfg *config.Server, log *slog.Logger) []string {
	lc, err := cfg.Model.LLM()
	if err != nil {
		return []string{err.Error()}
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return []string{err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var warnings []string
	seen := map[string]bool{}
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RoleObserver, llm.RolePlanner, llm.RoleCoder, llm.RoleSummarizer, llm.RoleApply} {
		name := client.ModelName(role)
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := client.CheckListed(ctx, role); err != nil {
			w := "model check: " + err.Error()
			log.Error("MODEL CHECK FAILED: runs using this model will fail", "role", role, "model", name, "err", err)
			warnings = append(warnings, w)
		}
	}
	return warnings
}

func botSignature(login string) repo.Signature {
	return repo.Signature{Name: login, Email: login + "@users.noreply.github.com"}
}
