package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPushSettings(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	assert.Equal(t, PushOrigin, s.Push, "the repository itself by default")
	assert.False(t, s.ForkPush())

	s, err = ParseServer(append(minimal(), "ISSUESMITH_PUSH=fork", "ISSUESMITH_FORK_OWNER=issuesmith-forks"))
	require.NoError(t, err)
	assert.True(t, s.ForkPush())
	assert.Equal(t, "issuesmith-forks", s.ForkOwner)
	assert.Contains(t, s.String(), "fork_owner=issuesmith-forks")

	// The settings file takes them too.
	file := filepath.Join(t.TempDir(), "issuesmith.env")
	require.NoError(t, os.WriteFile(file, []byte("ISSUESMITH_PUSH=fork\nISSUESMITH_FORK_OWNER=bots\n"), 0o600))
	s, err = ParseServer(append(minimal(), "ISSUESMITH_CONFIG_FILE="+file))
	require.NoError(t, err)
	assert.Equal(t, "bots", s.ForkOwner)
	assert.True(t, s.ForkPush())

	for env, want := range map[string]string{
		"ISSUESMITH_PUSH=fork":                                      "ISSUESMITH_FORK_OWNER: required with ISSUESMITH_PUSH=fork",
		"ISSUESMITH_PUSH=upstream":                                  "ISSUESMITH_PUSH: must be origin or fork",
		"ISSUESMITH_PUSH=fork\x00ISSUESMITH_FORK_OWNER=bad/name":    "ISSUESMITH_FORK_OWNER: must be a GitHub user or organization name",
		"ISSUESMITH_PUSH=fork\x00ISSUESMITH_FORK_OWNER=-leadinghyp": "ISSUESMITH_FORK_OWNER: must be a GitHub user or organization name",
	} {
		_, err := ParseServer(append(minimal(), strings.Split(env, "\x00")...))
		require.ErrorContains(t, err, want, env)
	}
}
