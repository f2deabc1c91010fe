package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// validateGitea checks the Gitea settings: all or none.
func (s *Server) validateGitea(bad func(name, why string)) {
	if s.GiteaURL == "" {
		if s.GiteaTokenFile != "" || s.GiteaWebhookSecret != "" {
			bad("GITEA_URL", "required with GITEA_TOKEN_FILE and GITEA_WEBHOOK_SECRET: the Gitea server's root URL")
		}
		if s.Sessions.GiteaClientID != "" {
			bad("SESSIONS_GITEA_CLIENT_ID", "needs "+EnvPrefix+"GITEA_URL: the Gitea server people sign in with")
		}
		return
	}
	if u, err := url.Parse(s.GiteaURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("GITEA_URL", "must be an absolute http(s) URL")
	}
	if s.GiteaTokenFile == "" {
		bad("GITEA_TOKEN_FILE", "required with GITEA_URL: the file holding the bot user's access token")
	}
	if s.GiteaWebhookSecret == "" {
		bad("GITEA_WEBHOOK_SECRET", "required with GITEA_URL: the secret of the repositories' webhooks")
	}
	if !s.HasApp() && s.ForkPush() {
		bad("PUSH", "fork pushes through the GitHub App's forks; a bot serving only Gitea pushes to the repository")
	}
}

// GiteaToken returns the bot user's Gitea access token, read from
// GiteaTokenFile (surrounding space trimmed).
func (s *Server) GiteaToken() (string, error) {
	b, err := os.ReadFile(s.GiteaTokenFile)
	if err != nil {
		return "", fmt.Errorf("%sGITEA_TOKEN_FILE: %w", EnvPrefix, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%sGITEA_TOKEN_FILE: the file is empty", EnvPrefix)
	}
	return tok, nil
}

// HasApp reports whether any GitHub App setting is given: without
// GITEA_URL the App is required; with it the App is optional (a bot that
// serves only a Gitea server), and all of its settings or none.
func (s *Server) HasApp() bool {
	return s.AppID != 0 || s.PrivateKey != "" || s.PrivateKeyFile != "" || s.WebhookSecret != ""
}
