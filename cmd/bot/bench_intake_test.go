package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/webhook"
)

// TestIntakeBench is the intake benchmark, a measurement and not a gate
// (set ISSUESMITH_BENCH=1): distinct signed issue deliveries are sent
// open-loop at ISSUESMITH_BENCH_RATE per second (default 1000) for
// ISSUESMITH_BENCH_SECONDS (default 15) to a fresh `bot serve` on SQLite,
// over loopback keep-alive connections with GitHub's 10 s timeout. Each bot
// of ISSUESMITH_BENCH_BOTS ("name=path,name=path": built binaries, run as
// `path serve`; default: this test binary's server) is measured in turn,
// ISSUESMITH_BENCH_ROUNDS times (default 2), alternating, so releases are
// compared minutes apart on the same machine. One line per run: the rate
// reached, p50 and p99 of the answers, accepted (2xx), recorded (deliveries
// with an intake job once the server has drained what it held), lost
// (accepted, never recorded) and duplicates.
//
//	go build -o /tmp/bot-now ./cmd/bot
//	git worktree add /tmp/prev <commit> && (cd /tmp/prev && go build -o /tmp/bot-prev ./cmd/bot)
//	ISSUESMITH_BENCH=1 ISSUESMITH_BENCH_BOTS=prev=/tmp/bot-prev,now=/tmp/bot-now \
//	  go test ./cmd/bot -run '^TestIntakeBench$' -v -timeout 30m
func TestIntakeBench(t *testing.T) {
	if os.Getenv("ISSUESMITH_BENCH") != "1" {
		t.Skip("measurement: set ISSUESMITH_BENCH=1")
	}
	rate, secs, rounds := benchEnv("ISSUESMITH_BENCH_RATE", 1000), benchEnv("ISSUESMITH_BENCH_SECONDS", 15),
		benchEnv("ISSUESMITH_BENCH_ROUNDS", 2)
	bots := [][2]string{{"this", ""}}
	if v := os.Getenv("ISSUESMITH_BENCH_BOTS"); v != "" {
		bots = nil
		for _, b := range strings.Split(v, ",") {
			name, path, ok := strings.Cut(b, "=")
			require.True(t, ok, "ISSUESMITH_BENCH_BOTS: want name=path, got %q", b)
			bots = append(bots, [2]string{name, path})
		}
	}
	var lines []string
	for round := 1; round <= rounds; round++ {
		for _, b := range bots {
			t.Run(fmt.Sprintf("%s-%d", b[0], round), func(t *testing.T) {
				line := benchIntake(t, b[1], rate, secs)
				lines = append(lines, fmt.Sprintf("%-6s round %d: %s", b[0], round, line))
				t.Log(line)
			})
		}
	}
	t.Logf("intake at %d/s for %d s on SQLite:\n%s", rate, secs, strings.Join(lines, "\n"))
}

func benchEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchIntake runs one bot (bin; "" is this test binary's server) and
// returns its line.
func benchIntake(t *testing.T, bin string, rate, secs int) string {
	e := newE2E(t, "http://127.0.0.1:1/v1")
	e.bin = bin
	e.env = append(e.env, "ISSUESMITH_REDELIVER=off", "ISSUESMITH_LOG_LEVEL=warn")
	e.start()
	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "issues.unlabeled.json"))
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(raw, &p))
	p["installation"] = map[string]any{"id": e.gh.Installation()}
	obj(p, "issue")["number"] = 987654321
	tmpl, err := json.Marshal(p)
	require.NoError(t, err)
	require.Equal(t, 1, bytes.Count(tmpl, []byte(`"number":987654321`)))

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	defer client.CloseIdleConnections()
	total := rate * secs
	lat, codes := make([]time.Duration, total), make([]int, total)
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		body := bytes.Replace(tmpl, []byte(`"number":987654321`), []byte(`"number":`+strconv.Itoa(1_000_000+i)), 1)
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, "http://"+e.addr+"/webhook", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "issues")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("load-%d", i))
			req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(e2eSecret), body))
			t0 := time.Now()
			resp, err := client.Do(req)
			lat[i] = time.Since(t0)
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		})
	}
	sendTook := time.Since(start)
	wg.Wait()
	accepted := 0
	for _, c := range codes {
		if c >= 200 && c <= 299 {
			accepted++
		}
	}
	st, err := store.Open(t.Context(), filepath.Join(e.dir, "issuesmith.db"))
	require.NoError(t, err)
	defer st.Close()
	// Held deliveries are recorded by the server: wait until the count
	// stays the same for 3 s (at most 2 minutes).
	lost, dups, last, since := 0, 0, -1, time.Now()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		lost, dups = countIntake(t, st, total)
		if total-lost != last {
			last, since = total-lost, time.Now()
		} else if time.Since(since) > 3*time.Second {
			break
		}
	}
	recorded := total - lost
	return fmt.Sprintf("sent %d in %s (%.0f/s); p50 %s p99 %s max %s; accepted %d; recorded %d; lost %d; duplicates %d",
		total, sendTook.Round(time.Millisecond), float64(total)/sendTook.Seconds(), pct(lat, 50), pct(lat, 99),
		pct(lat, 100), accepted, recorded, max(accepted-recorded, 0), dups)
}
