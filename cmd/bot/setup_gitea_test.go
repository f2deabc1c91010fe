package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteaserver"
)

// TestSetupGitea runs `bot setup --forge gitea` against a real Gitea: a
// repository whose bot user is no administrator is named with what to
// change and gets no webhook; a token without write:issue is refused with
// Gitea's scope message; with both fixed the webhook is made with the
// secret gitea.env holds, and a second run keeps that secret and makes no
// second webhook.
func TestSetupGitea(t *testing.T) {
	t.Parallel()
	srv := giteaserver.Start(t)
	alice := srv.User("alice", "write:repository,write:issue,write:user")
	full := srv.User("issuesmith", "write:repository,write:issue,read:user")
	narrow := srv.Token("issuesmith", "write:repository,read:user")
	srv.Repo(alice, "alice", "hello", map[string]string{"greet.go": "package greet\n"})
	dir := t.TempDir()
	write := func(tok string) string {
		p := filepath.Join(t.TempDir(), "token")
		require.NoError(t, os.WriteFile(p, []byte(tok), 0o600))
		return p
	}
	run := func(tokenFile string) (string, error) {
		var out bytes.Buffer
		err := runSetupGitea(t.Context(), &out, setupOptions{out: dir, webhookURL: "http://127.0.0.1:9/webhook/gitea",
			gitea: giteaSetup{url: srv.URL, tokenFile: tokenFile, repos: []string{"alice/hello"}}})
		return out.String(), err
	}

	fullFile := write(full)
	out, err := run(fullFile)
	require.Error(t, err, out)
	require.Contains(t, err.Error(), "make issuesmith an administrator of the repository")
	srv.API(alice, "PUT", "/repos/alice/hello/collaborators/issuesmith", map[string]any{"permission": "admin"}, nil)

	_, err = run(write(narrow))
	require.Error(t, err)
	require.Contains(t, err.Error(), "write:issue")

	out, err = run(fullFile)
	require.NoError(t, err, out)
	require.Contains(t, out, "the bot acts as issuesmith")
	env, err := os.ReadFile(filepath.Join(dir, giteaEnvFile))
	require.NoError(t, err)
	secret := ""
	for _, l := range strings.Split(string(env), "\n") {
		if v, ok := strings.CutPrefix(l, "ISSUESMITH_GITEA_WEBHOOK_SECRET="); ok {
			secret = v
		}
	}
	require.Len(t, secret, 64)
	var hooks []struct {
		Config map[string]string `json:"config"`
	}
	srv.API(alice, "GET", "/repos/alice/hello/hooks", nil, &hooks)
	require.Len(t, hooks, 1)
	require.Equal(t, "http://127.0.0.1:9/webhook/gitea", hooks[0].Config["url"])

	out, err = run(fullFile)
	require.NoError(t, err, out)
	require.Contains(t, out, "already there")
	again, err := os.ReadFile(filepath.Join(dir, giteaEnvFile))
	require.NoError(t, err)
	require.Equal(t, string(env), string(again), "the secret is kept")
	srv.API(alice, "GET", "/repos/alice/hello/hooks", nil, &hooks)
	require.Len(t, hooks, 1)
}
