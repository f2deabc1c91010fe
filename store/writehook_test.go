package store_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// The write hook sees every write transaction, numbered, with its tables,
// and its error is a transient failure: on SQLite that commit is rolled
// back; on PostgreSQL (already committed) the next write fails once.
// Not parallel: the hook is the process's.
func TestWriteHook(t *testing.T) {
	var (
		mu     sync.Mutex
		writes []store.Write
		failAt int64
	)
	store.SetWriteHook(func(w store.Write) error {
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, w)
		if w.N == failAt {
			return errors.New("injected")
		}
		return nil
	})
	defer store.SetWriteHook(nil)
	srv := storetest.StartPostgres(t)
	for name, open := range map[string]func(*testing.T) *store.Store{"sqlite": func(t *testing.T) *store.Store { return storetest.SQLite(t) }, "postgres": func(t *testing.T) *store.Store { return srv.Open(t) }} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s := open(t)
			mu.Lock()
			writes, failAt = nil, 0
			mu.Unlock()
			r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 1}, 1, "a")
			require.NoError(t, err)
			_, err = s.Checkpoint(ctx, r.ID, "spec", "1")
			require.NoError(t, err)
			mu.Lock()
			got := slices.Clone(writes) // asserted unlocked: a failure must not leave the hook's lock held
			mu.Unlock()
			require.Len(t, got, 2)
			require.Equal(t, []string{"runs", "known_repos"}, got[0].Tables, "a run and its repository, one transaction")
			require.Equal(t, []string{"run_steps"}, got[1].Tables)
			require.Equal(t, got[0].N+1, got[1].N)
			require.Equal(t, s.Dialect() == store.Postgres, got[0].Committed)
			mu.Lock()
			failAt = got[1].N + 1
			mu.Unlock()

			r.Step = "first try"
			err = s.SaveOpenRun(ctx, r)
			if s.Dialect() == store.SQLite {
				require.Error(t, err, "the commit hook's refusal is the statement's error")
				got, gerr := s.Run(ctx, r.ID)
				require.NoError(t, gerr)
				require.Empty(t, got.Step, "rolled back")
				require.NoError(t, s.SaveOpenRun(ctx, r), "once")
			} else {
				require.NoError(t, err, "committed before the hook ran")
				// The connection drops under the next write (database/sql
				// would retry a dropped connection itself: use a Tx).
				q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
				require.NoError(t, err)
				checkpoint := func(tx *store.Tx) error {
					_, err := tx.Checkpoint(ctx, r.ID, "plan", "2")
					return err
				}
				require.Error(t, q.InTx(ctx, checkpoint), "the next write fails")
				require.NoError(t, q.InTx(ctx, checkpoint), "once")
			}
			final, err := s.Run(ctx, r.ID)
			require.NoError(t, err)
			require.Equal(t, "first try", final.Step)
		})
	}
}
