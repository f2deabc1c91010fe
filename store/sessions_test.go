package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

var sessionSuite = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"events and totals", testSessionEvents},
	{"finished steps drop reruns", testSessionSteps},
	{"shrink and blobs", testSessionShrink},
	{"list and filter", testSessionList},
	{"retention and uninstall", testSessionDelete},
}

func TestSessionsSQLite(t *testing.T) {
	t.Parallel()
	for _, tc := range sessionSuite {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, storetest.SQLite(t)) })
	}
}

func TestSessionsPostgres(t *testing.T) {
	t.Parallel()
	srv := storetest.StartPostgres(t)
	for _, tc := range sessionSuite {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, srv.Open(t)) })
	}
}

func newSession(t *testing.T, s *store.Store, inst int64, owner, repo string, issue int) *store.Session {
	t.Helper()
	sess := &store.Session{InstallationID: inst, RunID: int64(issue), Owner: owner, Repo: repo, Issue: issue, Requester: "alice"}
	require.NoError(t, s.CreateSession(t.Context(), sess))
	require.NotZero(t, sess.ID)
	return sess
}

func appendEv(t *testing.T, s *store.Store, id, seq int64, step, kind, body string, d store.SessionDelta) bool {
	t.Helper()
	ok, err := s.AppendSessionEvent(t.Context(), &store.SessionEvent{SessionID: id, Seq: seq, Stage: "explore", Step: step,
		Kind: kind, At: time.UnixMilli(1700000000123 + seq), Duration: 1500 * time.Millisecond, Body: body}, d)
	require.NoError(t, err)
	return ok
}

func testSessionEvents(t *testing.T, s *store.Store) {
	ctx := t.Context()
	sess := newSession(t, s, 42, "o", "r", 7)
	require.True(t, appendEv(t, s, sess.ID, 1, "explore", "model", `{"a":1}`,
		store.SessionDelta{ModelCalls: 1, PromptTokens: 100, CachedTokens: 40, CompletionTokens: 10, Cost: 0.5}))
	require.True(t, appendEv(t, s, sess.ID, 2, "explore", "tool", `{"b":22}`, store.SessionDelta{}))
	// A duplicate sequence number is refused, never overwritten.
	_, err := s.AppendSessionEvent(ctx, &store.SessionEvent{SessionID: sess.ID, Seq: 2, Kind: "tool", Body: "{}"}, store.SessionDelta{})
	require.Error(t, err)

	got, err := s.Session(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.ModelCalls)
	require.Equal(t, int64(100), got.PromptTokens)
	require.Equal(t, int64(40), got.CachedTokens)
	require.Equal(t, int64(10), got.CompletionTokens)
	require.InDelta(t, 0.5, got.Cost, 1e-9)
	require.Equal(t, int64(len(`{"a":1}`)+len(`{"b":22}`)), got.Bytes)
	require.Equal(t, "explore", got.Stage)
	require.True(t, got.Running())

	evs, err := s.SessionEvents(ctx, sess.ID, 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, `{"b":22}`, evs[1].Body)
	require.Equal(t, 1500*time.Millisecond, evs[1].Duration)
	require.Equal(t, int64(1700000000125), evs[1].At.UnixMilli())
	after, err := s.SessionEvents(ctx, sess.ID, 1, 10)
	require.NoError(t, err)
	require.Len(t, after, 1)

	require.NoError(t, s.EndSession(ctx, sess.ID, store.StateDone))
	got, err = s.Session(ctx, sess.ID)
	require.NoError(t, err)
	require.False(t, got.Running())
	require.Equal(t, store.StateDone, got.State)
	byRun, err := s.SessionOfRun(ctx, 7)
	require.NoError(t, err)
	require.Equal(t, sess.ID, byRun.ID)
	_, err = s.Session(ctx, sess.ID+100)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func testSessionSteps(t *testing.T, s *store.Store) {
	ctx := t.Context()
	sess := newSession(t, s, 42, "o", "r", 1)
	n, done, err := s.BeginSessionStep(ctx, sess.ID, "plan")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.False(t, done)
	require.True(t, appendEv(t, s, sess.ID, 1, "plan", "model", "{}", store.SessionDelta{}))
	// A crash before the step finished: the re-run is attempt 2 and its
	// events are kept.
	n, done, err = s.BeginSessionStep(ctx, sess.ID, "plan")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.False(t, done)
	require.True(t, appendEv(t, s, sess.ID, 2, "plan", "model", "{}", store.SessionDelta{ModelCalls: 1}))
	require.NoError(t, s.FinishSessionStep(ctx, sess.ID, "plan"))
	// The step is finished: a re-run's events are dropped, totals unchanged.
	_, done, err = s.BeginSessionStep(ctx, sess.ID, "plan")
	require.NoError(t, err)
	require.True(t, done)
	require.False(t, appendEv(t, s, sess.ID, 3, "plan", "model", "{}", store.SessionDelta{ModelCalls: 1}))
	require.NoError(t, s.FinishSessionStep(ctx, sess.ID, "plan"))
	evs, err := s.SessionEvents(ctx, sess.ID, 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	got, err := s.Session(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.ModelCalls)
}

func testSessionShrink(t *testing.T, s *store.Store) {
	ctx := t.Context()
	sess := newSession(t, s, 42, "o", "r", 1)
	big := `{"result":"` + string(make([]byte, 0)) + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + `"}`
	require.True(t, appendEv(t, s, sess.ID, 1, "", "tool", big, store.SessionDelta{}))
	require.NoError(t, s.ShrinkSessionEvent(ctx, sess.ID, 1, `{"result":"x[cut]"}`))
	got, err := s.Session(ctx, sess.ID)
	require.NoError(t, err)
	require.True(t, got.Cut)
	require.Equal(t, int64(len(`{"result":"x[cut]"}`)), got.Bytes)
	evs, err := s.SessionEvents(ctx, sess.ID, 0, 0)
	require.NoError(t, err)
	require.True(t, evs[0].Shrunk)
	require.ErrorIs(t, s.ShrinkSessionEvent(ctx, sess.ID, 9, "{}"), store.ErrNotFound)

	stored, err := s.PutSessionBlob(ctx, sess.ID, "h1", "system", "You are the explorer.")
	require.NoError(t, err)
	require.True(t, stored)
	stored, err = s.PutSessionBlob(ctx, sess.ID, "h1", "system", "You are the explorer.")
	require.NoError(t, err)
	require.False(t, stored, "a blob is stored once per session")
	blobs, err := s.SessionBlobs(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "You are the explorer.", blobs["h1"].Body)
	got, err = s.Session(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, int64(len(`{"result":"x[cut]"}`)+len("You are the explorer.")), got.Bytes)
}

func testSessionList(t *testing.T, s *store.Store) {
	ctx := t.Context()
	a := newSession(t, s, 1, "Acme", "Web", 1)
	b := newSession(t, s, 1, "acme", "api", 2)
	c := newSession(t, s, 2, "other", "x", 3)
	require.NoError(t, s.EndSession(ctx, b.ID, store.StateFailed))
	ids := func(f store.SessionFilter) []int64 {
		list, err := s.ListSessions(ctx, f)
		require.NoError(t, err)
		var out []int64
		for _, x := range list {
			out = append(out, x.ID)
		}
		return out
	}
	require.Equal(t, []int64{c.ID, b.ID, a.ID}, ids(store.SessionFilter{}))
	require.Equal(t, []int64{a.ID}, ids(store.SessionFilter{Repo: "acme/web"}))
	require.Equal(t, []int64{b.ID}, ids(store.SessionFilter{State: store.StateFailed}))
	require.Equal(t, []int64{c.ID, a.ID}, ids(store.SessionFilter{Visible: []string{"ACME/web", "other/x"}}))
	require.Empty(t, ids(store.SessionFilter{Visible: []string{}}))
	require.Equal(t, []int64{b.ID}, ids(store.SessionFilter{Limit: 1, Offset: 1}))
	repos, err := s.SessionRepos(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"Acme/Web", "acme/api", "other/x"}, repos)
}

func testSessionDelete(t *testing.T, s *store.Store) {
	ctx := t.Context()
	a := newSession(t, s, 1, "o", "a", 1)
	b := newSession(t, s, 2, "o", "b", 2)
	for _, id := range []int64{a.ID, b.ID} {
		appendEv(t, s, id, 1, "x", "tool", "{}", store.SessionDelta{})
		require.NoError(t, s.FinishSessionStep(ctx, id, "x"))
		_, err := s.PutSessionBlob(ctx, id, "h", "tools", "[]")
		require.NoError(t, err)
	}
	n, err := s.DeleteSessionsOf(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	_, err = s.Session(ctx, a.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	evs, err := s.SessionEvents(ctx, a.ID, 0, 0)
	require.NoError(t, err)
	require.Empty(t, evs)
	n, err = s.DeleteSessionsBefore(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.Zero(t, n, "a fresh session is kept")
	n, err = s.DeleteSessionsBefore(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	blobs, err := s.SessionBlobs(ctx, b.ID)
	require.NoError(t, err)
	require.Empty(t, blobs)
}
