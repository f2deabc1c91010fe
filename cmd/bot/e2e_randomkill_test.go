package main

import (
	"fmt"
	"os"
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
// `bot serve` (SIGKILL) at 6 random moments of the run and starting it
// again on the same database; ISSUESMITH_RANDOM_KILLS_DB=sqlite or
// postgres runs one database only, ISSUESMITH_CRASH_SEED replays the
// moments. The gap from the process's start (or restart) to its next kill
// is uniform in [0, 2W/6), W the uninterrupted run's time from its start
// until its CI round pushed, so the k-th kill falls on average k/6 of the
// way through the work, whatever the restarts cost; a kill is acted on at
// the test's next poll. A measurement, not a gate: it prints the table.
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
	r := seededRand(t, "random kills")
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
			// The uninterrupted run twice: the first warms the caches
			// (and PostgreSQL), so the second's work time is a typical
			// run's, and the kill moments fall inside a run's work.
			base := playRun(t, dsn(t))
			if warm := playRun(t, dsn(t)); warm.active < base.active {
				base.active = warm.active
			}
			t.Logf("%s: uninterrupted run %s (the work %s), %d model requests, %d commits", db, base.took.Round(time.Millisecond),
				base.active.Round(time.Millisecond), base.asks, base.commits)
			var mu sync.Mutex
			var rows []string
			passed, allKills := 0, 0
			t.Cleanup(func() {
				t.Logf("%s: %d of %d runs ended as the uninterrupted run; %d of them had all %d kills\n| run | gaps before each kill (s) | kills done | took | model requests (uninterrupted %d) | first recovery | end state |\n|---|---|---|---|---|---|---|\n%s",
					db, passed, n, allKills, killsPerRun, base.asks, strings.Join(rows, "\n"))
			})
			for i := range n {
				kills := make([]time.Duration, killsPerRun)
				for k := range kills {
					kills[k] = time.Duration(r.Int64N(int64(2 * base.active / killsPerRun)))
				}
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
					if got.killed == killsPerRun {
						allKills++
					}
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
