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
