package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	require.Eventually(t, func() bool {
		return strings.Contains(opsAfter(e, before), "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} 200")
	}, 60*time.Second, 50*time.Millisecond, "the killed revise job was not resumed")
	time.Sleep(3 * time.Second) // room to redo (wrongly) what was done
	require.NoError(t, e.stop())
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "issuesmith.db")+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
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
