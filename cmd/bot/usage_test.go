package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// TestUsageTable: bot usage prints the ledger grouped as asked, biggest
// cost first, with a total; entries before --since are left out; a bad
// --since or --by names the flag or the groupings.
func TestUsageTable(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bot.db")
	s, err := store.OpenMigrated(t.Context(), db)
	require.NoError(t, err)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, e := range []store.UsageEntry{
		{At: now.Add(-time.Hour), InstallationID: 7, Owner: "octo", Repo: "demo", RunID: 1, Role: "coder", Model: "m1"},
		{At: now.Add(-2 * time.Hour), InstallationID: 7, Owner: "octo", Repo: "demo", RunID: 1, Role: "explorer", Model: "m2"},
		{At: now.Add(-24 * time.Hour), InstallationID: 8, Owner: "else", Repo: "lib", RunID: 2, Role: "coder", Model: "m1"},
		{At: now.Add(-40 * 24 * time.Hour), InstallationID: 8, Owner: "old", Repo: "lib", RunID: 3, Role: "coder", Model: "m1"},
	} {
		require.NoError(t, s.ReserveUsage(t.Context(), &e))
		require.NoError(t, s.ChargeUsage(t.Context(), e.ID, 12000, 4000, 800, float64(e.InstallationID)/100, false))
	}
	require.NoError(t, s.Close())

	run := func(args ...string) (string, error) {
		out, errOut, err := execCmd(t, newUsageCmdWith(func() []string { return nil }, func() time.Time { return now }), "",
			append([]string{"--database", db}, args...)...)
		return out + errOut, err
	}
	out, err := run()
	require.NoError(t, err)
	require.Equal(t, ""+
		"       REPO  calls  prompt  cached  completion  cost (USD)\n"+
		"  octo/demo      2  24,000   8,000       1,600      0.1400\n"+
		"   else/lib      1  12,000   4,000         800      0.0800\n"+
		"      total      3  36,000  12,000       2,400      0.2200\n", out)
	out, err = run("--since", "3h", "--by", "model")
	require.NoError(t, err)
	require.Contains(t, out, "    m1      1  12,000")
	require.Contains(t, out, "    m2      1  12,000")
	require.Contains(t, out, " total      2  24,000")
	_, err = run("--since", "soon")
	require.ErrorContains(t, err, `--since: "soon" is not a positive duration`)
	_, err = run("--by", "colour")
	require.ErrorContains(t, err, "repo, installation, model or role")
}
