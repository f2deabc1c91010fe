package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

// TestServeRecordsDeliveriesWhileTheLimitIsSpent: the installation's
// GitHub limit is spent (429, primary, the reset 12 s away: longer than
// the client sits out) when a person labels the issue. The real bot serve
// answers the delivery 202 at once without asking GitHub, its intake job
// (the sender's permission check) is snoozed until the reset instead of
// failing, and then the run starts: one progress comment, no delivery
// lost, no redelivery asked.
func TestServeRecordsDeliveriesWhileTheLimitIsSpent(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "http://127.0.0.1:1/v1")
	e.env = append(e.env, "ISSUESMITH_REDELIVER=off")
	e.start()
	f := e.gh.PrimaryLimit(ghtest.AnyOp, http.StatusTooManyRequests, time.Now().Add(12*time.Second), -1)
	e.gh.Inject(f)

	t0 := time.Now()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	require.Less(t, time.Since(t0), 2*time.Second, "the handler waits on no GitHub call")
	require.Contains(t, e.get("/metrics"), `issuesmith_webhook_deliveries_total{event="issues",result="dispatched"} 1`)

	e.await(60*time.Second, func() bool { return e.progress() != "" },
		"the run never started after the reset")
	require.False(t, time.Now().Before(f.Until), "nothing was written before the reset")
	require.Len(t, e.botComments()["progress"], 1)
	require.Empty(t, e.gh.Redeliveries())
	e.mu.Lock()
	logs := e.logs.String()
	e.mu.Unlock()
	require.Contains(t, logs, "GitHub's rate limit: the job runs again when it resets")
	require.Contains(t, logs, "kind=intake")
}
