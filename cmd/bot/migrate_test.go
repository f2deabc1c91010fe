package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store/storetest"
)

func runBot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, errOut, err := execCmd(t, newRootCmd(), "", args...)
	return out + errOut, err
}

func TestMigrateSQLiteTwice(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bot.db")
	out, err := runBot(t, "migrate", "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "database: sqlite\nschema version: 8 (applied now: [1 2 3 4 5 6 7 8])")
	require.Contains(t, out, "river migrations applied now: [1 2 3 4 5 6]")
	out, err = runBot(t, "migrate", "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "schema version: 8 (applied now: [])\nriver migrations applied now: []")
}

func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.StartPostgres(t).DSN(t)
	out, err := runBot(t, "migrate", "--database", dsn)
	require.NoError(t, err)
	require.Contains(t, out, "database: postgres\nschema version: 8 (applied now: [1 2 3 4 5 6 7 8])")
}

func TestMigrateBadDatabaseSaysSoWithoutThePassword(t *testing.T) {
	t.Parallel()
	_, err := runBot(t, "migrate", "--database", "postgres://bot:hunter2secret@127.0.0.1:1/db?connect_timeout=2")
	require.Error(t, err)
	require.Contains(t, err.Error(), "open postgres")
	require.NotContains(t, err.Error(), "hunter2secret")
}

// Without --database, migrate opens the database bot serve would open: the
// one ISSUESMITH_DATABASE_URL names, also when it comes from the config file.
func TestMigrateDefaultsToTheConfiguredDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "configured.db")
	envFile := filepath.Join(dir, "issuesmith.env")
	require.NoError(t, os.WriteFile(envFile, []byte("ISSUESMITH_DATABASE_URL="+db+"\n"), 0o600))
	cmd := newMigrateCmdWith(func() []string { return []string{"ISSUESMITH_CONFIG_FILE=" + envFile} })
	out, _, err := execCmd(t, cmd, "")
	require.NoError(t, err)
	require.Contains(t, out, "schema version: 8 (applied now: [1 2 3 4 5 6 7 8])")
	require.FileExists(t, db)
}
