package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGiteaSettings: the Gitea settings come all together; with them the
// GitHub App is optional (a bot serving only Gitea), but half an App is
// still refused, as is a fork push without the App; the secret is never
// logged and the token is read from its file.
func TestGiteaSettings(t *testing.T) {
	t.Parallel()
	tok := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tok, []byte("  gitea-token-123\n"), 0o600))
	gitea := []string{"ISSUESMITH_GITEA_URL=https://gitea.example.com/", "ISSUESMITH_GITEA_TOKEN_FILE=" + tok,
		"ISSUESMITH_GITEA_WEBHOOK_SECRET=gitea-hush", "ISSUESMITH_MODEL_NAME=qwen3-coder", "HOME=/root"}

	s, err := ParseServer(gitea)
	require.NoError(t, err, "Gitea alone needs no App")
	require.False(t, s.HasApp())
	got, err := s.GiteaToken()
	require.NoError(t, err)
	require.Equal(t, "gitea-token-123", got)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "server", s)
	require.NotContains(t, buf.String(), "gitea-hush")
	require.NotContains(t, buf.String(), "gitea-token-123")
	require.Contains(t, buf.String(), "gitea.example.com")

	s, err = ParseServer(append(minimal(), gitea...))
	require.NoError(t, err, "both forges")
	require.True(t, s.HasApp())

	_, err = ParseServer(append([]string{"ISSUESMITH_APP_ID=12"}, gitea...))
	require.ErrorContains(t, err, "ISSUESMITH_PRIVATE_KEY_FILE: required")

	_, err = ParseServer(append(minimal(), "ISSUESMITH_GITEA_URL=https://gitea.example.com/"))
	require.ErrorContains(t, err, "ISSUESMITH_GITEA_TOKEN_FILE: required with GITEA_URL")
	require.ErrorContains(t, err, "ISSUESMITH_GITEA_WEBHOOK_SECRET: required with GITEA_URL")

	_, err = ParseServer(append(minimal(), "ISSUESMITH_GITEA_WEBHOOK_SECRET=x"))
	require.ErrorContains(t, err, "ISSUESMITH_GITEA_URL: required")

	_, err = ParseServer(append(gitea, "ISSUESMITH_PUSH=fork", "ISSUESMITH_FORK_OWNER=bots"))
	require.ErrorContains(t, err, "ISSUESMITH_PUSH: fork pushes through the GitHub App")

	_, err = ParseServer(append([]string{"ISSUESMITH_MODEL_NAME=m"}, "HOME=/root"))
	require.ErrorContains(t, err, "ISSUESMITH_APP_ID: required", "neither forge: the App is required")
}
