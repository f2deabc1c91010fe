package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store/storetest"
)

// randomKillsEnv runs the random-kill sweep: ISSUESMITH_RANDOM_KILLS=N
// plays the whole run (label → spec → plan → approval → code → PR → one
// review round → one CI round) N times per database, each time killing
// `bot serve` (SIGKILL) at 6 random moments of the run (uniform over the
// uninterrupted run's time from the start until its CI round pushed; a
// moment is acted on at the next poll of the test) and starting it
// again on the same database; ISSUESMITH_RANDOM_KILLS_DB=sqlite or
// postgres runs one database only, ISSUESMITH_CRASH_SEED replays the
// moments. A measurement, not a gate: it prints the table.
const (
	randomKillsEnv   = "ISSUESMITH_RANDOM_KILLS"
	randomKillsDBEnv = "ISSUESMITH_RANDOM_KILLS_DB"
	killsPerRun      = 6
)

// TestRandomKills: every run ends as the uninterrupted one does: one spec,
// plan and progress comment, one PR with the same files and commits, one
// review reply, one CI round, no open run without a job, the session
// ended once, and the model asked at most once more per killed job.
func TestRandomKills(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(randomKillsEnv))
	if n <= 0 {
		t.Skip("measurement: set " + randomKillsEnv + "=N")
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv(crashSeedEnv); v != "" {
		var err error
		seed, err = strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("random kills seed %d (%s=%d replays it)", seed, crashSeedEnv, seed)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	for _, db := range []string{"sqlite", "postgres"} {
		if only := os.Getenv(randomKillsDBEnv); only != "" && only != db {
			continue
		}
		t.Run(db, func(t *testing.T) {
			var srv *storetest.Server
			dsn := func(t *testing.T) string {
				if srv == nil {
					return ""
				}
				return srv.DSN(t)
			}
			if db == "postgres" {
				srv = storetest.StartPostgres(t)
			}
			base := playRun(t, dsn(t))
			t.Logf("%s: uninterrupted run %s (the work %s), %d model requests, %d commits", db, base.took.Round(time.Millisecond),
				base.active.Round(time.Millisecond), base.asks, base.commits)
			var mu sync.Mutex
			var rows []string
			passed := 0
			t.Cleanup(func() {
				t.Logf("%s: %d of %d runs of %d kills ended as the uninterrupted run\n| run | kills at (s) | kills done | took | model requests (uninterrupted %d) | first recovery | end state |\n|---|---|---|---|---|---|---|\n%s",
					db, passed, n, killsPerRun, base.asks, strings.Join(rows, "\n"))
			})
			for i := range n {
				kills := make([]time.Duration, killsPerRun)
				for k := range kills {
					kills[k] = time.Duration(r.Int64N(int64(base.active)))
				}
				slices.Sort(kills)
				at := make([]string, len(kills))
				for k, d := range kills {
					at[k] = fmt.Sprintf("%.1f", d.Seconds())
				}
				ok := t.Run(strconv.Itoa(i), func(t *testing.T) {
					got := playRunKilled(t, dsn(t), kills)
					require.Equal(t, base.files, got.files, "the same files")
					require.Equal(t, base.commits, got.commits, "the same commits")
					require.LessOrEqual(t, got.asks, base.asks+got.killed*maxAsksPerJob, "the model asked again at most for each killed job")
					mu.Lock()
					defer mu.Unlock()
					rows = append(rows, fmt.Sprintf("| %d | %s | %d | %s | %d | %s | same |", i, strings.Join(at, ", "), got.killed,
						got.took.Round(100*time.Millisecond), got.asks, got.recovered.Round(100*time.Millisecond)))
				})
				mu.Lock()
				if ok {
					passed++
				} else {
					rows = append(rows, fmt.Sprintf("| %d | %s | – | – | – | – | **different** |", i, strings.Join(at, ", ")))
				}
				mu.Unlock()
			}
		})
	}
}
