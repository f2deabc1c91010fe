package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/redeliver"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// TestLoad is the load command, a measurement and not a gate (set
// ISSUESMITH_LOAD=1; ISSUESMITH_LOAD_RATE deliveries/s, default 200, for
// ISSUESMITH_LOAD_SECONDS, default 20): the fake GitHub sends signed,
// distinct deliveries at a fixed rate to one `bot serve` on SQLite, then to
// two replicas on one PostgreSQL behind a round-robin proxy; mid-run the
// database is unavailable for 10 s (PostgreSQL stopped; SQLite locked by
// another writer). Deliveries the database cannot take are held on disk
// (answered 202) and recorded by the servers once it answers: the test
// waits until every delivery has its intake job and prints how long after
// the database's return that took. Then the reconciler (redeliver.Pass)
// runs against the fake's delivery log until it asks nothing more (for
// deliveries answered 503). It prints p50/p99 of the answers, deliveries
// held, the recovery time, deliveries lost (no intake job; must be 0) and
// duplicates (more than one intake job for a delivery; must be 0), and
// fails if either is not 0.
func TestLoad(t *testing.T) {
	if os.Getenv("ISSUESMITH_LOAD") != "1" {
		t.Skip("measurement: set ISSUESMITH_LOAD=1")
	}
	rate, _ := strconv.Atoi(os.Getenv("ISSUESMITH_LOAD_RATE"))
	secs, _ := strconv.Atoi(os.Getenv("ISSUESMITH_LOAD_SECONDS"))
	rate, secs = max(rate, 1), max(secs, 12)
	if os.Getenv("ISSUESMITH_LOAD_RATE") == "" {
		rate = 200
	}
	if os.Getenv("ISSUESMITH_LOAD_SECONDS") == "" {
		secs = 20
	}
	t.Run("sqlite-1-replica", func(t *testing.T) {
		e := newE2E(t, "http://127.0.0.1:1/v1")
		e.env = append(e.env, "ISSUESMITH_REDELIVER=off")
		e.start()
		dbPath := filepath.Join(e.dir, "issuesmith.db")
		var lock *sql.Tx
		outage := func(on bool) {
			if on {
				db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)")
				require.NoError(t, err)
				lock, err = db.Begin()
				require.NoError(t, err)
				_, err = lock.Exec(`INSERT INTO deliveries (id, event, received_at) VALUES ('load-lock', 'x', 0)`)
				require.NoError(t, err) // holds SQLite's one write lock
				return
			}
			require.NoError(t, lock.Rollback())
		}
		runLoad(t, e, []string{e.addr}, dbPath, rate, secs, outage)
	})
	t.Run("postgres-2-replicas", func(t *testing.T) {
		srv := storetest.StartPostgres(t)
		dsn := srv.DSN(t)
		e := newE2E(t, "http://127.0.0.1:1/v1")
		e.env = append(e.env, "ISSUESMITH_DATABASE_URL="+dsn, "ISSUESMITH_REDELIVER=off")
		e.start()
		second := e.startReplica()
		runLoad(t, e, []string{e.addr, second}, dsn, rate, secs, func(on bool) {
			if on {
				srv.Stop(t)
			} else {
				srv.Start(t)
			}
		})
	})
}

// runLoad sends, interrupts the database, reconciles and reports.
func runLoad(t *testing.T, e *e2e, addrs []string, dsn string, rate, secs int, outage func(on bool)) {
	var next atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse("http://" + addrs[int(next.Add(1))%len(addrs)])
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	e.gh.SetWebhook(proxy.URL+"/webhook", []byte(e2eSecret))
	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "issues.unlabeled.json"))
	require.NoError(t, err)
	var tmpl map[string]any
	require.NoError(t, json.Unmarshal(raw, &tmpl))
	tmpl["installation"] = map[string]any{"id": e.gh.Installation()}

	total := rate * secs
	lat := make([]time.Duration, total)
	codes := make([]int, total)
	start := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	outageAt, outageEnd := secs/2-5, secs/2+5
	var back time.Time // when the database answered again
	for i := range total {
		<-tick.C
		if i == outageAt*rate {
			outage(true)
		}
		if i == outageEnd*rate {
			outage(false)
			back = time.Now()
		}
		obj(tmpl, "issue")["number"] = 1_000_000 + i // a distinct body per delivery
		body, err := json.Marshal(tmpl)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			codes[i] = e.gh.Deliver(fmt.Sprintf("load-%d", i), "issues", body, 10*time.Second)
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	sent := time.Since(start)
	failed, heldCount := 0, 0
	for _, a := range addrs { // answered 202 "held": the servers' own count
		resp, err := http.Get("http://" + a + "/metrics")
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		heldCount += heldIn(string(b))
	}
	for _, c := range codes {
		if c < 200 || c > 299 {
			failed++
		}
	}

	st, err := store.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer st.Close()
	// Held deliveries are recorded by the servers themselves once the
	// database answers: wait (up to 2 minutes) until none is missing.
	var recovered time.Duration
	for {
		if lost, _ := countIntake(t, st, total); lost == 0 {
			recovered = time.Since(back)
			break
		}
		if time.Since(back) > 2*time.Minute {
			recovered = -1
			break
		}
		time.Sleep(250 * time.Millisecond)
	}

	// Then the reconciler, against the fake's delivery log, until nothing
	// is asked: for deliveries answered 503 (nothing held them).
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: e.gh.AppID(), PrivateKey: e.gh.PrivateKey(), BaseURL: e.gh.URL(), BotLogin: e.gh.BotLogin()})
	require.NoError(t, err)
	asked := 0
	for pass := 0; pass < 20; pass++ {
		rep, err := redeliver.Pass(t.Context(), app, st, redeliver.Options{Since: start.Add(-time.Minute),
			Max: total, ScanLimit: 10 * total, Pause: time.Microsecond})
		require.NoError(t, err)
		asked += len(rep.Asked)
		if len(rep.Asked) == 0 && rep.Deferred == 0 {
			break
		}
		time.Sleep(3 * time.Second) // the fake resends in the background
	}
	lost, dups := countIntake(t, st, total)
	// Latency before the outage (steady state) and over the whole run.
	steady := append([]time.Duration(nil), lat[:outageAt*rate]...)
	t.Logf("%d replica(s): %d deliveries at %d/s in %s; before the outage p50 %s p99 %s; whole run p50 %s p99 %s; "+
		"answered non-2xx or not in 10 s: %d; held: %d; every delivery recorded %s after the database's return "+
		"(-1: not within 2 minutes, before the reconciler); redeliveries asked: %d; lost: %d; duplicates: %d",
		len(addrs), total, rate, sent.Round(time.Millisecond), pct(steady, 50), pct(steady, 99), pct(lat, 50), pct(lat, 99),
		failed, heldCount, recovered.Round(10*time.Millisecond), asked, lost, dups)
	require.Zero(t, lost, "deliveries lost")
	require.Zero(t, dups, "deliveries processed twice")
}

// heldIn sums the "held" delivery counters of a /metrics page.
func heldIn(page string) int {
	n := 0
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "issuesmith_webhook_deliveries_total{") && strings.Contains(line, `result="held"`) {
			v, _ := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
			n += v
		}
	}
	return n
}

// pct is the p-th percentile of d (sorted in place).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[(len(d)-1)*p/100].Round(100 * time.Microsecond)
}

// countIntake counts the load deliveries without an intake job (lost) and
// the extra jobs of deliveries queued more than once (duplicates).
func countIntake(t *testing.T, st *store.Store, total int) (lost, dups int) {
	q := `SELECT json_extract(args, '$.event.Delivery') FROM river_job WHERE kind = 'issuesmith_intake'`
	if st.Dialect() == store.Postgres {
		q = `SELECT args->'event'->>'Delivery' FROM river_job WHERE kind = 'issuesmith_intake'`
	}
	rows, err := st.DB().QueryContext(t.Context(), q)
	require.NoError(t, err)
	defer rows.Close()
	seen := map[string]int{}
	for rows.Next() {
		var id sql.NullString
		require.NoError(t, rows.Scan(&id))
		seen[id.String]++
	}
	require.NoError(t, rows.Err())
	for i := range total {
		switch n := seen[fmt.Sprintf("load-%d", i)]; {
		case n == 0:
			lost++
		case n > 1:
			dups += n - 1
		}
	}
	return lost, dups
}
