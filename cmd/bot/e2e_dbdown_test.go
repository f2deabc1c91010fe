package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// TestServeStartsWhileTheDatabaseIsDown: the real bot serve started while
// its PostgreSQL server is stopped answers at once: /healthz is 200,
// /readyz 503 naming the database. 200 deliveries (a label among them)
// are each answered 202 as held. Once PostgreSQL starts, the server opens
// and migrates the database by itself, becomes ready, and records every
// delivery exactly once (one intake job each) without a redelivery; the
// labelled issue's run starts and its progress comment appears once.
func TestServeStartsWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	pg := storetest.StartPostgres(t)
	dsn := pg.DSN(t)
	pg.Stop(t)
	e := newE2E(t, "http://127.0.0.1:1/v1")
	e.env = append(e.env, "ISSUESMITH_DATABASE_URL="+dsn, "ISSUESMITH_REDELIVER=off")
	e.child = e.launch("process start (database down)", e.addr, e.env)
	require.Eventually(t, func() bool {
		code, body := getStatus("http://" + e.addr + "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "waiting for the database")
	}, 30*time.Second, 20*time.Millisecond, "bot serve did not answer /readyz while the database is down")
	code, _ := getStatus("http://" + e.addr + "/healthz")
	require.Equal(t, http.StatusOK, code)

	const total = 200
	codes := make([]int, total)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				id := fmt.Sprintf("load-%d", i)
				if i == 0 {
					codes[i] = e.deliverAs("issues", "issues.labeled.json", id, e2eSecret, func(p map[string]any) {
						obj(p, "issue")["number"] = e.issue
						obj(p, "label")["name"] = "issuesmith"
					})
					continue
				}
				codes[i] = e.deliverAs("issues", "issues.unlabeled.json", id, e2eSecret, func(p map[string]any) {
					obj(p, "issue")["number"] = 1_000_000 + i
				})
			}
		})
	}
	for i := range total {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, c := range codes {
		require.Equal(t, http.StatusAccepted, c, "delivery %d", i)
	}
	require.Contains(t, e.get("/metrics"), `issuesmith_webhook_deliveries_total{event="issues",result="held"} 200`)
	_, body := getStatus("http://" + e.addr + "/readyz")
	require.Contains(t, body, "held deliveries: 200 wait to be recorded")
	require.Empty(t, e.progress(), "nothing can start while the database is down")

	pg.Start(t)
	e.waitReady("server", e.addr)
	st, err := store.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer st.Close()
	require.Eventually(t, func() bool {
		lost, _ := countIntake(t, st, total)
		return lost == 0
	}, 60*time.Second, 100*time.Millisecond, "held deliveries were not all recorded once the database came")
	require.Eventually(t, func() bool {
		return strings.Contains(e.get("/metrics"), "issuesmith_webhook_held 0")
	}, 10*time.Second, 50*time.Millisecond)
	_, dups := countIntake(t, st, total)
	require.Zero(t, dups, "a delivery recorded twice")
	e.await(60*time.Second, func() bool { return e.progress() != "" },
		"the labelled issue's run never started")
	require.Len(t, e.botComments()["progress"], 1)
	require.Empty(t, e.gh.Redeliveries())
	require.NoError(t, e.stop(), "a clean shutdown")
}

// getStatus is GET url's status and body (0 when it does not answer).
func getStatus(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
