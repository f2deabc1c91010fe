package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionsSettings(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	assert.Equal(t, int64(2<<20), s.Sessions.MaxBytes)
	assert.Equal(t, 90*24*time.Hour, s.Sessions.Retention)
	assert.Equal(t, "sessions page off: set ISSUESMITH_PUBLIC_URL and ISSUESMITH_OAUTH_CLIENT_ID and ISSUESMITH_OAUTH_CLIENT_SECRET",
		s.Sessions.PageOff())

	s, err = ParseServer(append(minimal(), "ISSUESMITH_PUBLIC_URL=https://bot.example.com/",
		"ISSUESMITH_OAUTH_CLIENT_ID=Iv23abc", "ISSUESMITH_OAUTH_CLIENT_SECRET=shh-secret-value",
		"ISSUESMITH_SESSIONS_OPERATORS=alice,bob-ops"))
	require.NoError(t, err)
	assert.Empty(t, s.Sessions.PageOff())
	assert.Equal(t, "https://bot.example.com", s.Sessions.PublicURL)
	assert.Equal(t, []string{"alice", "bob-ops"}, s.Sessions.Operators)
	assert.NotContains(t, s.String(), "shh-secret-value")

	_, err = ParseServer(append(minimal(), "ISSUESMITH_PUBLIC_URL=ftp://x", "ISSUESMITH_OAUTH_CLIENT_ID=Iv23abc",
		"ISSUESMITH_SESSIONS_MAX_BYTES=10", "ISSUESMITH_SESSIONS_RETENTION=1m", "ISSUESMITH_SESSIONS_OPERATORS=not a login"))
	require.Error(t, err)
	for _, name := range []string{"PUBLIC_URL", "OAUTH_CLIENT_SECRET", "SESSIONS_MAX_BYTES", "SESSIONS_RETENTION", "SESSIONS_OPERATORS"} {
		assert.Contains(t, err.Error(), "ISSUESMITH_"+name+":")
	}
}

func TestSessionsGiteaSettings(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	assert.Equal(t, "Gitea sessions page off: set ISSUESMITH_GITEA_URL and ISSUESMITH_PUBLIC_URL and "+
		"ISSUESMITH_SESSIONS_GITEA_CLIENT_ID and ISSUESMITH_SESSIONS_GITEA_CLIENT_SECRET", s.Sessions.GiteaPageOff(s.GiteaURL))

	s, err = ParseServer(append(minimal(), "ISSUESMITH_PUBLIC_URL=https://bot.example.com/",
		"ISSUESMITH_SESSIONS_GITEA_CLIENT_ID=abc", "ISSUESMITH_SESSIONS_GITEA_CLIENT_SECRET=gto_secret",
		"ISSUESMITH_SESSIONS_GITEA_OPERATORS=alice,bob.ops", "ISSUESMITH_GITEA_URL=https://gitea.example/",
		"ISSUESMITH_GITEA_TOKEN_FILE=/x", "ISSUESMITH_GITEA_WEBHOOK_SECRET=w"))
	require.NoError(t, err)
	assert.Empty(t, s.Sessions.GiteaPageOff(s.GiteaURL))
	assert.Equal(t, []string{"alice", "bob.ops"}, s.Sessions.GiteaOperators)

	_, err = ParseServer(append(minimal(), "ISSUESMITH_SESSIONS_GITEA_CLIENT_ID=abc",
		"ISSUESMITH_SESSIONS_GITEA_OPERATORS=not a login"))
	require.Error(t, err)
	for _, name := range []string{"SESSIONS_GITEA_CLIENT_SECRET", "SESSIONS_GITEA_CLIENT_ID", "SESSIONS_GITEA_OPERATORS"} {
		assert.Contains(t, err.Error(), "ISSUESMITH_"+name+":")
	}
}
