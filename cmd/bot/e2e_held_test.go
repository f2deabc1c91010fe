package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeHoldsDeliveriesWhileTheDatabaseIsAway: while another writer
// holds SQLite's write lock (the database cannot record anything), a
// label delivery to the real bot serve is still answered 202 within
// GitHub's 10 s, as held, and /metrics counts it; once the lock is gone
// the server records it by itself (no redelivery is asked: the
// reconciler is off) and the run starts: the bot's progress comment
// appears, once.
func TestServeHoldsDeliveriesWhileTheDatabaseIsAway(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "http://127.0.0.1:1/v1")
	e.env = append(e.env, "ISSUESMITH_REDELIVER=off")
	e.start()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "issuesmith.db")+"?_pragma=busy_timeout(10000)")
	require.NoError(t, err)
	defer db.Close()
	lock, err := db.Begin()
	require.NoError(t, err)
	_, err = lock.Exec(`INSERT INTO deliveries (id, event, received_at) VALUES ('held-lock', 'x', 0)`)
	require.NoError(t, err)

	t0 := time.Now()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	require.Less(t, time.Since(t0), 10*time.Second, "answered within GitHub's timeout")
	require.Contains(t, e.get("/metrics"), `issuesmith_webhook_deliveries_total{event="issues",result="held"} 1`)
	// A negative check: no event marks "nothing happened", so a window of
	// time it is (the drain's first failed pass waits out SQLite's busy
	// timeout, 40 s here: too long to wait for).
	time.Sleep(1500 * time.Millisecond)
	require.Empty(t, e.progress(), "nothing can start while the database is away")

	require.NoError(t, lock.Rollback())
	e.await(30*time.Second, func() bool { return e.progress() != "" }, "the held delivery was never recorded and run")
	require.Eventually(t, func() bool {
		return strings.Contains(e.get("/metrics"), "issuesmith_webhook_held 0")
	}, 10*time.Second, 50*time.Millisecond)
	e.jobsIdle() // a second run of the delivery would have commented by then
	require.Len(t, e.botComments()["progress"], 1, "one progress comment: the delivery was recorded once")
	require.Empty(t, e.gh.Redeliveries())
}
