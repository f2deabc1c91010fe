package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

func TestUsageLedgerSQLite(t *testing.T) {
	t.Parallel()
	testUsageLedger(t, storetest.SQLite(t))
}

func TestUsageLedgerPostgres(t *testing.T) {
	t.Parallel()
	testUsageLedger(t, storetest.StartPostgres(t).Open(t))
}

// testUsageLedger: reservations count at their worst case until charged,
// refused ones are dropped, and the windows sum by run, repository (any
// case of its name) and installation from the start of the day and month.
func testUsageLedger(t *testing.T, s *store.Store) {
	ctx := t.Context()
	clock := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return clock })
	add := func(e store.UsageEntry, prompt, cached, completion int64, cost float64) *store.UsageEntry {
		t.Helper()
		e.PromptTokens, e.CompletionTokens, e.Cost = 1000, 1000, 1 // the worst case
		require.NoError(t, s.ReserveUsage(ctx, &e))
		require.NotZero(t, e.ID)
		require.True(t, e.Pending)
		require.NoError(t, s.ChargeUsage(ctx, e.ID, prompt, cached, completion, cost, false))
		return &e
	}
	base := store.UsageEntry{InstallationID: 7, Owner: "Octo", Repo: "Demo", Issue: 1, RunID: 11, Stage: "code", Role: "coder", Model: "m1"}
	add(base, 100, 40, 10, 0.5) // 20th, run 11
	clock = clock.Add(24 * time.Hour)
	add(base, 200, 0, 20, 1) // 21st, run 11
	other := base
	other.Owner, other.RunID, other.Role, other.Model = "else", 12, "explorer", "m2"
	add(other, 300, 0, 30, 2) // 21st, other repository, same installation
	pending := base
	pending.RunID = 0
	require.NoError(t, s.ReserveUsage(ctx, &pending)) // worst case 0 tokens, then:
	refused := base
	refused.PromptTokens = 5000
	require.NoError(t, s.ReserveUsage(ctx, &refused))
	require.NoError(t, s.DropUsage(ctx, refused.ID))
	held := base
	held.PromptTokens, held.CompletionTokens, held.Cost = 50, 5, 0.25
	require.NoError(t, s.ReserveUsage(ctx, &held)) // admitted, not charged yet

	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w, err := s.UsageWindows(ctx, store.UsageScope{InstallationID: 7, Owner: "octo", Repo: "demo", RunID: 11, Day: day, Month: month})
	require.NoError(t, err)
	require.Equal(t, store.UsageSum{Tokens: 110 + 220 + 55, Cost: 1.75}, w.Run)
	require.Equal(t, store.UsageSum{Tokens: 220 + 55, Cost: 1.25}, w.RepoDay)
	require.Equal(t, store.UsageSum{Tokens: 110 + 220 + 55, Cost: 1.75}, w.RepoMonth)
	require.Equal(t, store.UsageSum{Tokens: 220 + 330 + 55, Cost: 3.25}, w.InstallationDay)
	require.Equal(t, store.UsageSum{Tokens: 110 + 220 + 330 + 55, Cost: 3.75}, w.InstallationMonth)

	next := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	w, err = s.UsageWindows(ctx, store.UsageScope{InstallationID: 7, Owner: "octo", Repo: "demo", Day: next, Month: next})
	require.NoError(t, err)
	require.Equal(t, store.UsageWindows{}, w, "a new month starts empty; no run asked")

	rows, err := s.UsageReport(ctx, month, "repo")
	require.NoError(t, err)
	require.Equal(t, []store.UsageRow{
		{Key: "else/demo", Calls: 1, PromptTokens: 300, CompletionTokens: 30, Cost: 2},
		{Key: "octo/demo", Calls: 4, PromptTokens: 350, CachedTokens: 40, CompletionTokens: 35, Cost: 1.75},
	}, rows)
	rows, err = s.UsageReport(ctx, day, "model")
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, "m2", rows[0].Key)
	rows, err = s.UsageReport(ctx, month, "installation")
	require.NoError(t, err)
	require.Equal(t, []store.UsageRow{{Key: "7", Calls: 5, PromptTokens: 650, CachedTokens: 40, CompletionTokens: 65, Cost: 3.75}}, rows)
	_, err = s.UsageReport(ctx, month, "colour")
	require.ErrorContains(t, err, `cannot group by "colour"`)
}

func TestLoopTriggersSQLite(t *testing.T) {
	t.Parallel()
	testLoopTriggers(t, storetest.SQLite(t))
}

func TestLoopTriggersPostgres(t *testing.T) {
	t.Parallel()
	testLoopTriggers(t, storetest.StartPostgres(t).Open(t))
}

// testLoopTriggers: at most max of a kind per window and issue; other
// kinds and issues count apart; an hour later the window is free again.
func testLoopTriggers(t *testing.T, s *store.Store) {
	ctx := t.Context()
	clock := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return clock })
	key := store.IssueKey{Owner: "Octo", Repo: "Demo", Issue: 3}
	for i := range 3 {
		ok, n, err := s.Trigger(ctx, key, "revise", time.Hour, 3)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, i, n)
		clock = clock.Add(time.Minute)
	}
	ok, n, err := s.Trigger(ctx, store.IssueKey{Owner: "octo", Repo: "demo", Issue: 3}, "revise", time.Hour, 3)
	require.NoError(t, err)
	require.False(t, ok, "the fourth in an hour is refused, whatever the name's case")
	require.Equal(t, 3, n)
	ok, _, err = s.Trigger(ctx, key, "ci", time.Hour, 3)
	require.NoError(t, err)
	require.True(t, ok, "another kind counts apart")
	ok, _, err = s.Trigger(ctx, store.IssueKey{Owner: "Octo", Repo: "Demo", Issue: 4}, "revise", time.Hour, 3)
	require.NoError(t, err)
	require.True(t, ok, "another issue counts apart")
	clock = clock.Add(time.Hour)
	require.NoError(t, s.PruneTriggers(ctx, time.Hour))
	ok, n, err = s.Trigger(ctx, key, "revise", time.Hour, 3)
	require.NoError(t, err)
	require.True(t, ok)
	require.Zero(t, n)
}
