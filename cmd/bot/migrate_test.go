package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store/storetest"
)

func runBot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestMigrateSQLiteTwice(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bot.db")
	out, err := runBot(t, "migrate", "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "database: sqlite\nschema version: 3 (applied now: [1 2 3])")
	require.Contains(t, out, "river migrations applied now: [1 2 3 4 5 6]")
	out, err = runBot(t, "migrate", "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "schema version: 3 (applied now: [])\nriver migrations applied now: []")
}

func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.StartPostgres(t).DSN(t)
	out, err := runBot(t, "migrate", "--database", dsn)
	require.NoError(t, err)
	require.Contains(t, out, "database: postgres\nschema version: 3 (applied now: [1 2 3])")
}

func TestMigrateBadDatabaseSaysSoWithoutThePassword(t *testing.T) {
	t.Parallel()
	_, err := runBot(t, "migrate", "--database", "postgres://bot:hunter2secret@127.0.0.1:1/db?connect_timeout=2")
	require.Error(t, err)
	require.Contains(t, err.Error(), "open postgres")
	require.NotContains(t, err.Error(), "hunter2secret")
}
