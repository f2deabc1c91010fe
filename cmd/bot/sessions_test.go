package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
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
