package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

func knownNames(t *testing.T, s *store.Store) map[string]int64 {
	t.Helper()
	known, err := s.KnownRepos(t.Context())
	require.NoError(t, err)
	out := map[string]int64{}
	for _, k := range known {
		out[k.Owner+"/"+k.Repo] = k.InstallationID
	}
	return out
}

// testKnownRepos: a run's repository is known from the transaction that
// opens the run (not if it rolls back), for as long as the installation
// keeps it, whatever River does with its job rows; uninstalling (or
// removing the repository) forgets it.
func testKnownRepos(t *testing.T, s *store.Store) {
	ctx := t.Context()
	clock := time.Unix(1_790_000_000, 0)
	s.SetClock(func() time.Time { return clock })
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)

	require.NoError(t, q.InTx(ctx, func(tx *store.Tx) error {
		_, created, err := tx.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "app", Issue: 1}, 11, "mona")
		require.True(t, created)
		return err
	}))
	boom := errors.New("crash before commit")
	require.ErrorIs(t, q.InTx(ctx, func(tx *store.Tx) error {
		_, _, err := tx.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "rolled-back", Issue: 1}, 11, "mona")
		require.NoError(t, err)
		return boom
	}), boom)
	require.NoError(t, s.NoteRepo(ctx, 22, "other", "lib")) // a push refreshed
	require.NoError(t, s.NoteRepo(ctx, 11, "octo", "docs"))
	require.Equal(t, map[string]int64{"octo/app": 11, "octo/docs": 11, "other/lib": 22}, knownNames(t, s))

	// Two days on, River has long deleted its completed jobs; the
	// repositories are still known. The repository moved to installation
	// 33: reached through it, known since its first run.
	_, err = s.DB().ExecContext(ctx, `DELETE FROM river_job`)
	require.NoError(t, err)
	first := clock
	clock = clock.Add(48 * time.Hour)
	_, _, err = s.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "app", Issue: 2}, 33, "mona")
	require.NoError(t, err)
	known, err := s.KnownRepos(ctx)
	require.NoError(t, err)
	require.Len(t, known, 3)
	require.Equal(t, store.KnownRepo{InstallationID: 33, Owner: "octo", Repo: "app", FirstSeen: first, LastSeen: clock}, known[0])
	require.Equal(t, store.KnownRepo{InstallationID: 11, Owner: "octo", Repo: "docs", FirstSeen: first, LastSeen: first}, known[1])

	// Removing a repository (any case) forgets it for that installation.
	n, err := s.ForgetRepos(ctx, 11, []string{"OCTO/Docs", "nobody/none"})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, map[string]int64{"octo/app": 33, "other/lib": 22}, knownNames(t, s))
	_, err = s.ForgetRepos(ctx, 11, []string{"no-slash"})
	require.Error(t, err)
	// Uninstalling forgets all its repositories, no other installation's.
	n, err = s.ForgetRepos(ctx, 33, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, map[string]int64{"octo/app": 11, "other/lib": 22}, knownNames(t, s),
		"installation 11 still has octo/app")
	_, err = s.ForgetRepos(ctx, 11, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"other/lib": 22}, knownNames(t, s))
}

// testKnownReposBackfill: the migration that adds known_repos fills it
// from the runs an older release recorded.
func testKnownReposBackfill(t *testing.T, s *store.Store) {
	ctx := t.Context()
	clock := time.Unix(1_790_000_000, 0)
	s.SetClock(func() time.Time { return clock })
	_, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "app", Issue: 1}, 11, "mona")
	require.NoError(t, err)
	clock = clock.Add(time.Hour)
	_, _, err = s.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "app", Issue: 2}, 11, "mona")
	require.NoError(t, err)
	// Back to the schema before known_repos, runs kept.
	for _, q := range []string{`DROP TABLE known_repos`, `DELETE FROM schema_migrations WHERE version = 7`} {
		_, err := s.DB().ExecContext(ctx, q)
		require.NoError(t, err)
	}
	res, err := s.Migrate(ctx)
	require.NoError(t, err)
	require.Equal(t, []int{7}, res.Applied)
	known, err := s.KnownRepos(ctx)
	require.NoError(t, err)
	require.Equal(t, []store.KnownRepo{{InstallationID: 11, Owner: "octo", Repo: "app",
		FirstSeen: clock.Add(-time.Hour), LastSeen: clock}}, known)
}
