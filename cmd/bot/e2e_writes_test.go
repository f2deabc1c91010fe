package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// A crash after every database write. One run — label → spec → plan →
// approval → code → PR → one review round → one CI round — is played
// against `bot serve`, whose database driver kills the process (SIGKILL)
// once exactly N writes are durable, or fails write N once with a
// transient error; the process is restarted on the same database (GitHub
// redelivers a delivery the dead process never answered). The end state
// must equal the uninterrupted run's.
//
// go test runs a sample of kill and fault points chosen by a seed it
// prints (ISSUESMITH_CRASH_SEED replays it; ISSUESMITH_CRASH_POINTS="kill:12,fail:40"
// runs given points). ISSUESMITH_CRASH_SWEEP=1 runs every point of the
// run, on SQLite and PostgreSQL: a measurement, reported by TestCrashEveryWrite.
const (
	crashSeedEnv   = "ISSUESMITH_CRASH_SEED"
	crashSweepEnv  = "ISSUESMITH_CRASH_SWEEP"
	crashPointsEnv = "ISSUESMITH_CRASH_POINTS"
)

// writesScript is the model's side: every exchange copies times, in one AnyOrder
// group (most specific first), so a step asked again after a kill gets
// the same answer.
func writesScript(t *testing.T, copies int) llmtest.Script {
	base := llmtest.LoadScript(t, "testdata/e2e/script.yaml")
	for i := range base {
		base[i].Faults = nil
	}
	ci := func(file, content string) llmtest.Exchange {
		ex := llmtest.Reply(content).When(llmtest.Expect{Role: "coder", Last: "File to fix if needed: " + file + "\n"})
		ex.Name = "CI fix of " + file
		return ex
	}
	order := []llmtest.Exchange{
		ci("greet.go", "<file-edit filePath=\"greet.go\">\n------- SEARCH\n\treturn \"Hello, \" + name\n=======\n\treturn \"Hi, \" + name\n+++++++ REPLACE\n</file-edit>\n"),
		ci("greet_test.go", "The test states the wanted greeting; it needs no change.\n"),
		base[4], // the review round: capital H
		base[3], // greet_test.go
		base[2], // greet.go
		base[1], // planner
		base[0], // explorer
	}
	var s llmtest.Script
	for _, ex := range order {
		s = append(s, llmtest.Unordered(slices.Repeat([]llmtest.Exchange{ex}, copies)...)...)
	}
	return s
}

// spareTB is t for the scripted model, whose second copy of each answer is
// a spare for a step asked again after a kill: the spares left unplayed at
// the end are no failure (the request count is checked instead).
type spareTB struct{ *testing.T }

func (s spareTB) Errorf(format string, args ...any) {
	if strings.HasPrefix(format, "llmtest: script not finished") {
		s.Logf(format, args...)
		return
	}
	s.T.Errorf(format, args...)
}

// maxAsksPerJob is the most model requests one job of the run makes (the
// code stage and the CI round ask once per file, two files): a killed job
// runs again from its checkpoints and may ask that many again, no more.
const maxAsksPerJob = 2

// crashRun is one played run's outcome.
type crashRun struct {
	writes    int           // durable writes counted (uninterrupted run)
	asks      int           // model requests
	restarts  int           // process restarts
	recovered time.Duration // from the restart to the end state
	killed    int           // random kills done (playRunKilled)
	took      time.Duration // the whole run
	active    time.Duration // from the start until the CI round pushed (the work)
	files     map[string]string
	commits   int
}

// playRun plays the whole run. env adds the write hook's settings to the
// first process only; every restart runs without them.
func playRun(t *testing.T, dsn string, env ...string) crashRun {
	return playRunKilled(t, dsn, nil, env...)
}

// playRunKilled is playRun with the process killed at the given moments
// after its start (see crasher.kills).
func playRunKilled(t *testing.T, dsn string, kills []time.Duration, env ...string) crashRun {
	// Every answer once more per kill: a job killed twice asks twice again.
	model := llmtest.NewServer(spareTB{t}, writesScript(t, 2+len(kills)))
	e := newE2E(t, model.URL())
	if dsn != "" {
		e.env = append(e.env, "ISSUESMITH_DATABASE_URL="+dsn, fastRescueEnv+"=1")
	}
	name := e2eOwner + "/" + e2eRepo
	e.gh.SetRefResolver(func(_, _, ref string) string { return e.git.Head(t, name, ref) })
	wlog := filepath.Join(t.TempDir(), "writes.log")
	plain := e.env
	e.env = append(append(slices.Clone(plain), writeLogEnv+"="+wlog), env...)
	c := &crasher{e: e, plain: plain, kills: kills, t0: time.Now()}
	c.start()

	c.deliver("issues", "issues.labeled.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		obj(p, "label")["name"] = "issuesmith"
	})
	c.wait("the plan waits for approval", func() bool { return strings.Contains(e.progress(), "waiting for you") })
	plan := e.botComments()["plan"][0]
	edited := editPlan(t, plan.Body)
	e.gh.EditComment(plan.ID, edited)
	c.deliver("issue_comment", "issue_comment.edited.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		cm := obj(p, "comment")
		cm["id"], cm["body"] = plan.ID, edited
		obj(cm, "user")["login"], obj(cm, "user")["type"] = e.gh.BotLogin(), "Bot"
		p["changes"] = map[string]any{"body": map[string]any{"from": plan.Body}}
	})
	c.wait("the PR is open", func() bool { return strings.Contains(e.progress(), "issuesmith: done") })
	pr := e.gh.PullRequests(e2eOwner, e2eRepo)[0]

	rc := e.gh.AddReviewComment(e2eOwner, e2eRepo, pr.Number, ghtest.ReviewComment{User: e2eUser, Path: "greet.go", Line: 5,
		Body: "@issuesmith use a capital H in the greeting"})
	c.deliver("pull_request_review_comment", "pull_request_review_comment.created.json",
		e.reviewComment(pr.Number, pr.Head, rc, "@issuesmith use a capital H in the greeting", e2eUser, "User"))
	c.wait("the review is answered", func() bool {
		return slices.ContainsFunc(e.botReplies(pr.Number, rc), func(r ghtest.ReviewComment) bool { return strings.Contains(r.Body, "Done in") })
	})

	head := e.git.Head(t, name, pr.Head)
	e.gh.AddCheckRun(e2eOwner, e2eRepo, ghtest.CheckRun{HeadSHA: head, Name: "test", Conclusion: "failure", Log: ciLog})
	c.deliver("check_run", "check_run.completed.json", func(p map[string]any) {
		cr := obj(p, "check_run")
		cr["head_sha"] = head
		cr["pull_requests"].([]any)[0].(map[string]any)["number"] = pr.Number
	})
	c.wait("the CI round pushed its fix", func() bool { return strings.Contains(e.ciComment(pr.Number), "→ pushed") })
	active := time.Since(c.t0)
	// Every stage job finishes (one that failed a write is retried after
	// River's backoff), then room for a job that would wrongly redo
	// something, then a clean stop.
	db := openDB(t, e, dsn)
	for stopped := false; !stopped; {
		c.wait("every stage job finished", func() bool { return unfinishedJobs(t, db) == "" })
		time.Sleep(2 * time.Second)
		stopped = c.stop()
	}

	out := crashRun{asks: len(model.Requests()), restarts: c.restarts, recovered: c.recovered, killed: c.killed,
		files: e.git.Files(t, name, pr.Head), commits: len(e.git.Log(t, name, pr.Head)), took: time.Since(c.t0), active: active}
	if b, err := os.ReadFile(wlog); err == nil {
		out.writes = strings.Count(string(b), "\n")
	}

	// The end state of an uninterrupted run.
	cm := e.botComments()
	for _, kind := range []string{"spec", "plan", "progress"} {
		require.Len(t, cm[kind], 1, "one %s comment", kind)
	}
	require.Len(t, e.gh.PullRequests(e2eOwner, e2eRepo), 1, "one PR")
	var ciComments, replies int
	for _, pc := range e.gh.Comments(e2eOwner, e2eRepo, pr.Number) {
		if m, ok := ghtext.ParseMarker(pc.Body); ok && m.Kind == "ci" && pc.User == e.gh.BotLogin() {
			ciComments++
		}
	}
	replies += len(e.botReplies(pr.Number, rc))
	require.Equal(t, 1, ciComments, "one CI comment")
	require.Equal(t, 1, replies, "one reply in the review thread")
	require.Equal(t, 1, strings.Count(e.ciComment(pr.Number), "**Round"), "one CI round")
	noOrphans(t, e, dsn)
	sessionOnce(t, openDB(t, e, dsn))
	return out
}

// sessionOnce: the run's session ended with the run, and each finished
// step holds its GitHub writes and pushed commits once per attempt, from
// attempts begun before it finished (a job run again after the step
// finished recorded nothing).
func sessionOnce(t *testing.T, db *sql.DB) {
	var state string
	var ended int64
	require.NoError(t, db.QueryRow(`SELECT state, ended_at FROM sessions ORDER BY id DESC LIMIT 1`).Scan(&state, &ended))
	require.Equal(t, "done", state, "the session ended with the run")
	require.NotZero(t, ended)
	rows, err := db.Query(`SELECT e.step, e.attempt, s.attempts, e.body FROM session_events e
		JOIN session_steps s ON s.session_id = e.session_id AND s.step = e.step
		WHERE s.done_at <> 0 AND e.kind IN ('github', 'commit') ORDER BY e.seq`)
	require.NoError(t, err)
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var step, body string
		var attempt, attempts int
		require.NoError(t, rows.Scan(&step, &attempt, &attempts, &body))
		require.LessOrEqual(t, attempt, attempts, "step %s: an event of an attempt begun after it finished", step)
		key := fmt.Sprintf("%s #%d %s", step, attempt, body)
		require.False(t, seen[key], "recorded twice: %s", key)
		seen[key] = true
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, seen, "the finished steps' writes are recorded")
}

// noOrphans: no open run, no unfinished stage job.
func noOrphans(t *testing.T, e *e2e, dsn string) {
	db := openDB(t, e, dsn)
	var open int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM runs WHERE state IN ('active', 'waiting')`).Scan(&open))
	require.Zero(t, open, "no open run")
	require.Empty(t, unfinishedJobs(t, db), "no unfinished stage job")
}

// openDB opens the server's database beside it (closed when t ends).
func openDB(t *testing.T, e *e2e, dsn string) *sql.DB {
	driver, src := "sqlite", "file:"+filepath.Join(e.dir, "issuesmith.db")+"?_pragma=busy_timeout(5000)"
	if dsn != "" {
		driver, src = "pgx", dsn
	}
	db, err := sql.Open(driver, src)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// unfinishedJobs lists the stage jobs not finished ("" when none).
func unfinishedJobs(t *testing.T, db *sql.DB) string {
	rows, err := db.Query(`SELECT id, state, CAST(args AS TEXT) FROM river_job WHERE kind = 'issuesmith_stage'
		AND state NOT IN ('completed', 'cancelled', 'discarded') ORDER BY id`)
	require.NoError(t, err)
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id int64
		var state, args string
		require.NoError(t, rows.Scan(&id, &state, &args))
		fmt.Fprintf(&b, "job %d %s %s; ", id, state, args)
	}
	require.NoError(t, rows.Err())
	return b.String()
}

// crashPointsFor picks the points to run out of writes: all of them for
// the sweep, else a seeded sample of n kills and n faults.
func crashPointsFor(t *testing.T, writes, n int) []string {
	if v := os.Getenv(crashPointsEnv); v != "" {
		return strings.Split(v, ",")
	}
	var out []string
	if os.Getenv(crashSweepEnv) == "1" {
		for i := 1; i <= writes; i++ {
			out = append(out, "kill:"+strconv.Itoa(i), "fail:"+strconv.Itoa(i))
		}
		return out
	}
	r := seededRand(t, "crash points")
	for range n {
		out = append(out, "kill:"+strconv.Itoa(1+r.IntN(writes)), "fail:"+strconv.Itoa(1+r.IntN(writes)))
	}
	return out
}

// seededRand is the sweeps' random source: seeded by ISSUESMITH_CRASH_SEED
// when set, else by the clock, the seed printed so a run can be replayed.
func seededRand(t *testing.T, what string) *rand.Rand {
	seed := time.Now().UnixNano()
	if v := os.Getenv(crashSeedEnv); v != "" {
		var err error
		seed, err = strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("%s seed %d (%s=%d replays it)", what, seed, crashSeedEnv, seed)
	return rand.New(rand.NewPCG(uint64(seed), 0))
}

// TestCrashEveryWrite plays the run uninterrupted on each dialect, then
// once per chosen point, and compares the end states.
func TestCrashEveryWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	dialects := []struct{ name, dsn string }{{name: "sqlite"}, {"postgres", "pg"}}
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			var srv *storetest.Server
			dsn := func(t *testing.T) string {
				if d.dsn == "" {
					return ""
				}
				return srv.DSN(t)
			}
			if d.dsn != "" {
				srv = storetest.StartPostgres(t)
			}
			base := playRun(t, dsn(t))
			require.Zero(t, base.restarts)
			require.Positive(t, base.writes)
			t.Logf("%s: uninterrupted run: %d writes, %d model requests, %d commits", d.name, base.writes, base.asks, base.commits)
			points := crashPointsFor(t, base.writes, 1)
			var mu sync.Mutex
			var slowest time.Duration
			var slowestAt string
			t.Cleanup(func() {
				t.Logf("%s: %d points, slowest recovery %s (%s)", d.name, len(points), slowest.Round(time.Millisecond), slowestAt)
			})
			for _, p := range points {
				mode, n, _ := strings.Cut(p, ":")
				env := killAtEnv
				if mode == "fail" {
					env = failAtEnv
				}
				t.Run(p, func(t *testing.T) {
					t.Parallel()
					got := playRun(t, dsn(t), env+"="+n)
					require.Equal(t, base.files, got.files, "the same files")
					require.Equal(t, base.commits, got.commits, "the same commits")
					require.LessOrEqual(t, got.asks, base.asks+maxAsksPerJob, "the model asked again at most for the killed job")
					mu.Lock()
					defer mu.Unlock()
					if got.recovered > slowest {
						slowest, slowestAt = got.recovered, p
					}
					t.Logf("%s: restarts %d, recovered in %s, model requests %d", p, got.restarts, got.recovered.Round(time.Millisecond), got.asks)
				})
			}
		})
	}
}
