package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The crash matrix's mid-revise point: a review comment asks for a change,
// the bot commits and pushes it, and `bot serve` is killed (SIGKILL) right
// after GitHub created its reply in the thread, before the bot learned so.
// After the restart the end state is an uninterrupted run's: one follow-up
// commit (pushed once) and one reply in the thread, within a bounded time.
func TestCrashMidRevise(t *testing.T) {
	t.Parallel()
	script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:5]
	script[2].Faults = nil
	model := llmtest.NewServer(t, script)
	e := newE2E(t, model.URL())
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("issuesmith: done")
	prs := e.gh.PullRequests(e2eOwner, e2eRepo)
	require.Len(t, prs, 1)
	pr := prs[0]
	name := e2eOwner + "/" + e2eRepo
	require.Len(t, e.git.Log(t, name, pr.Head), 2)

	killed := make(chan struct{})
	e.gh.OnServed("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", func(ghtest.Request) bool {
		_ = e.child.Process.Kill()
		close(killed)
		return true
	})
	const ask = "@issuesmith use a capital H in the greeting"
	rc := e.gh.AddReviewComment(e2eOwner, e2eRepo, pr.Number, ghtest.ReviewComment{User: e2eUser, Path: "greet.go", Line: 5, Body: ask})
	require.Equal(t, http.StatusAccepted, e.deliver("pull_request_review_comment", "pull_request_review_comment.created.json",
		e.reviewComment(pr.Number, pr.Head, rc, ask, e2eUser, "User")))
	select {
	case <-killed:
	case <-time.After(90 * time.Second):
		t.Fatal("the revise never replied")
	}
	_ = e.child.Wait()
	e.child = nil
	restarted := time.Now()
	before := len(e.gh.Requests())
	e.start()

	replies := func() []ghtest.ReviewComment { return e.botReplies(pr.Number, rc) }
	// The restarted server resumes the killed revise job: it finds its
	// commit pushed and its reply posted, and edits the progress comment.
	e.await(60*time.Second, func() bool {
		return strings.Contains(opsAfter(e, before), "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} 200")
	}, "the killed revise job was not resumed")
	db := e.stageJobsDone(before) // what a wrong redo would do is done by then
	require.NoError(t, e.stop())
	var open int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'issuesmith_stage'
		AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&open))
	require.Zero(t, open, "every stage job finished: %s\n%s", jobsIn(db), opsAfter(e, before))
	t.Logf("settled %s after the restart", time.Since(restarted).Round(time.Millisecond))
	log := e.git.Log(t, name, pr.Head)
	require.Len(t, log, 3, "seed + the PR's commit + one follow-up commit")
	require.Contains(t, e.git.Files(t, name, pr.Head)["greet.go"], `return "Hello, " + name`)
	got := replies()
	require.Len(t, got, 1, "one reply in the thread")
	require.Contains(t, got[0].Body, "Done in "+log[0].Hash)
	require.Zero(t, model.Remaining(), "the revise asked the model once")
}

// stageJobsDone waits until the running server's database holds no
// unfinished stage job, and returns the database (closed with the test): a
// resumed job that would wrongly redo what was done has done it by then.
// (The database is read from outside the server: no request marks a job's
// end, so this one wait polls.)
func (e *e2e) stageJobsDone(before int) *sql.DB {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "issuesmith.db")+"?_pragma=busy_timeout(5000)")
	require.NoError(e.t, err)
	e.t.Cleanup(func() { db.Close() })
	open := -1
	if !assert.Eventually(e.t, func() bool {
		return db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'issuesmith_stage'
			AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&open) == nil && open == 0
	}, 60*time.Second, 50*time.Millisecond) {
		e.t.Fatalf("stage jobs still open: %s\n%s", jobsIn(db), opsAfter(e, before))
	}
	return db
}

// jobsIdle waits until the running server's database holds no job to run
// (available, running, retryable or pending), of any kind.
func (e *e2e) jobsIdle() {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "issuesmith.db")+"?_pragma=busy_timeout(5000)")
	require.NoError(e.t, err)
	defer db.Close()
	require.Eventually(e.t, func() bool {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM river_job WHERE state IN ('available', 'running', 'retryable', 'pending')`).Scan(&n)
		return err == nil && n == 0
	}, 60*time.Second, 50*time.Millisecond, "jobs still to run")
}

// jobsIn lists the stage jobs in db (for a failure message).
func jobsIn(db *sql.DB) string {
	rows, err := db.Query(`SELECT id, state, attempt, CAST(args AS TEXT) FROM river_job WHERE kind = 'issuesmith_stage' ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, attempt int
		var state, args string
		if err := rows.Scan(&id, &state, &attempt, &args); err != nil {
			return err.Error()
		}
		fmt.Fprintf(&b, "\n  job %d %s attempt %d %s", id, state, attempt, args)
	}
	return b.String()
}

// opsAfter lists the GitHub calls after the first n (for a failure message).
func opsAfter(e *e2e, n int) string {
	var b strings.Builder
	for _, r := range e.gh.Requests()[n:] {
		fmt.Fprintf(&b, "\n  %s %d %s", r.Op, r.Status, r.Path)
	}
	return b.String()
}
