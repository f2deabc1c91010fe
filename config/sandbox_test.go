package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSandboxSettings(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	require.Equal(t, Bytes(20<<30), s.Sandbox.ModuleCacheBudget)
	require.Equal(t, Bytes(5<<30), s.Sandbox.MinFreeSpace)
	require.Empty(t, s.Sandbox.EgressHosts, "the default ceiling allows no host")
	require.Equal(t, s.DataDir+"/sandbox-cache", s.CacheRoot())
	s, err = ParseServer(append(minimal(), "ISSUESMITH_BUILD_CACHE_BUDGET=512MiB", "ISSUESMITH_MIN_FREE_SPACE=0",
		"ISSUESMITH_EGRESS_HOSTS=proxy.golang.org,*.npmjs.org", "ISSUESMITH_CACHE_DIR=/var/cache/x"))
	require.NoError(t, err)
	require.Equal(t, Bytes(512<<20), s.Sandbox.BuildCacheBudget)
	require.Equal(t, Bytes(0), s.Sandbox.MinFreeSpace)
	require.Equal(t, []string{"proxy.golang.org", "*.npmjs.org"}, s.Sandbox.EgressHosts)
	require.Equal(t, "/var/cache/x", s.CacheRoot())
	_, err = ParseServer(append(minimal(), "ISSUESMITH_BUILD_CACHE_BUDGET=lots"))
	require.ErrorContains(t, err, "ISSUESMITH_BUILD_CACHE_BUDGET")
}

func TestRepoEgress(t *testing.T) {
	t.Parallel()
	c, err := ParseRepo([]byte("version: 1\negress:\n  hosts: [registry.npmjs.org]\n  methods: [POST]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"registry.npmjs.org"}, c.EgressHosts())
	require.Equal(t, []string{"POST"}, c.Egress.Methods)
	c, err = ParseRepo([]byte("version: 1\nchecks_network: true\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"*"}, c.EgressHosts(), "the deprecated switch asks for the whole ceiling")
	_, err = ParseRepo([]byte("version: 1\negress:\n  hostz: [x]\n"))
	require.Error(t, err)
}
