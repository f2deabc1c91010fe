package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

func TestSessionsListAndShow(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bot.db")
	ctx := t.Context()
	st, err := store.OpenMigrated(ctx, db)
	require.NoError(t, err)
	var ids []int64
	for _, repo := range []string{"web", "api"} {
		r := session.Start(ctx, st, store.Session{InstallationID: 1, Owner: "acme", Repo: repo, Issue: 3, Requester: "dana"}, session.Options{})
		r.Begin(ctx, session.StageCode, "code")
		r.Check(ctx, session.Check{Name: "go vet", OK: false, Output: "vet: x.go:1: bad"}, 0)
		r.Finish(ctx)
		ids = append(ids, r.ID())
	}
	require.NoError(t, st.EndSession(ctx, ids[0], store.StateFailed))
	require.NoError(t, st.Close())

	out, err := runBot(t, "sessions", "list", "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "acme/web")
	require.Contains(t, out, "acme/api")
	out, err = runBot(t, "sessions", "list", "--database", db, "--repo", "acme/web", "--state", "failed", "--json")
	require.NoError(t, err)
	var rows []sessionJSON
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	require.Equal(t, ids[0], rows[0].ID)
	require.NotNil(t, rows[0].EndedAt)

	out, err = runBot(t, "sessions", "show", strconv.FormatInt(ids[1], 10), "--database", db)
	require.NoError(t, err)
	require.Contains(t, out, "code / code (attempt 1)")
	require.Contains(t, out, "go vet: failed")
	require.Contains(t, out, "; 0 model calls, ")
	out, err = runBot(t, "sessions", "show", strconv.FormatInt(ids[1], 10), "--database", db, "--json")
	require.NoError(t, err)
	var rec struct {
		Events []session.Event `json:"events"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	require.Equal(t, "vet: x.go:1: bad", rec.Events[0].Check.Output)

	_, err = runBot(t, "sessions", "show", "999", "--database", db)
	require.ErrorContains(t, err, "no session 999")
	_, err = runBot(t, "sessions", "show", "x", "--database", db)
	require.ErrorContains(t, err, "not a number")
}

// bot sessions never creates a database: with none where the settings
// point, it names the setting to set; a filter that can match nothing is a
// usage error naming the flag and its values.
func TestSessionsRefusesMissingDatabaseAndBadFilters(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := func() []string { return []string{"HOME=" + home} }
	_, _, err := execCmd(t, newSessionsCmdWith(env), "", "list")
	require.ErrorContains(t, err, "no database at "+filepath.Join(home, ".local", "state", "issuesmith", "issuesmith.db"))
	require.ErrorContains(t, err, "(the default in the state directory): set ISSUESMITH_DATABASE_URL (or --database)")
	require.NoDirExists(t, filepath.Join(home, ".local", "state", "issuesmith"), "nothing created")

	missing := filepath.Join(t.TempDir(), "nowhere.db")
	withURL := func() []string { return []string{"HOME=" + home, "ISSUESMITH_DATABASE_URL=" + missing} }
	_, _, err = execCmd(t, newSessionsCmdWith(withURL), "", "show", "1")
	require.ErrorContains(t, err, "no database at "+missing+" (ISSUESMITH_DATABASE_URL)")
	require.NoFileExists(t, missing)
	_, _, err = execCmd(t, newSessionsCmdWith(env), "", "list", "--database", missing)
	require.ErrorContains(t, err, "no database at "+missing+" (--database)")
	require.NoFileExists(t, missing)

	for flags, want := range map[string]string{
		"--state bogus": `--state "bogus": want one of active, waiting, done, failed, cancelled`,
		"--repo acme":   `--repo "acme": want OWNER/NAME`,
		"--limit 0":     "--limit 0: want 1 or more",
		"--state Done":  `--state "Done"`,
		"--repo a/b/c":  `--repo "a/b/c"`,
	} {
		_, _, err := execCmd(t, newSessionsCmdWith(env), "", append([]string{"list"}, strings.Fields(flags)...)...)
		var ee *exitError
		require.ErrorAs(t, err, &ee, flags)
		require.Equal(t, 2, ee.code, flags)
		require.ErrorContains(t, err, want, flags)
	}
}
