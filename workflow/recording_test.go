package workflow_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/workflow"
)

const pageURL = "https://bot.example.com"

// withSessions restarts h's engine recording sessions, linked from the
// progress comment; the returned counter counts recording failures.
func withSessions(h *harness) *atomic.Int64 {
	var failures atomic.Int64
	h.stop(time.Second)
	h.sessions = &workflow.Sessions{PageURL: pageURL,
		Options: session.Options{Logger: testLogger(), OnError: func(error) { failures.Add(1) }}}
	h.start()
	return &failures
}

// runSession loads the session of run from the store.
func runSession(t *testing.T, st *store.Store, runID int64) *session.Record {
	t.Helper()
	sess, err := st.SessionOfRun(t.Context(), runID)
	require.NoError(t, err)
	rec, err := session.Load(t.Context(), st, sess.ID)
	require.NoError(t, err)
	return rec
}

// writes lists the session's GitHub writes and pushed commits as
// "stage: what target" lines, in order.
func writes(rec *session.Record) []string {
	var out []string
	for _, e := range rec.Events {
		switch {
		case e.GitHub != nil:
			out = append(out, fmt.Sprintf("%s: %s", e.Stage, strings.TrimSpace(e.GitHub.What+" "+e.GitHub.Target)))
		case e.Commit != nil:
			out = append(out, fmt.Sprintf("%s: commit to %s", e.Stage, e.Commit.Branch))
		}
	}
	return out
}

// A run through the workflow keeps one session in the store: its stages,
// the comments, the pushed commit and the pull request, each once; the
// progress comment links it; a review round appends to it; uninstalling the
// App deletes it. On SQLite and PostgreSQL.
func TestRunKeepsASessionLinkedFromTheProgressComment(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			st := storetest.SQLite(t)
			if dialect == "postgres" {
				st = storetest.StartPostgres(t).Open(t)
			}
			h := newHarnessOn(t, &agents{}, st)
			failures := withSessions(h)
			require.NoError(t, h.event(workflow.Labeled))
			run := h.waitRun("approval", waitingForApproval)
			h.waitProgress("waiting for you")
			sess, err := st.SessionOfRun(t.Context(), run.ID)
			require.NoError(t, err)
			require.True(t, sess.Running(), "waiting for approval: the session goes on")
			link := fmt.Sprintf("[View session](%s/sessions/%d)", pageURL, sess.ID)
			require.Contains(t, h.botComments()["progress"][0].Body, link)

			require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
			run = h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
			h.waitProgress("issuesmith: done")
			h.waitJobsDone()
			pr := h.gh.PullRequests(owner, name)[0]

			rec := runSession(t, st, run.ID)
			require.Equal(t, sess.ID, rec.Session.ID, "one session per run")
			require.Equal(t, store.StateDone, rec.Session.State)
			require.False(t, rec.Session.Running())
			require.Equal(t, "acme/app", rec.Session.FullRepo())
			require.Equal(t, "alice", rec.Session.Requester)
			require.Equal(t, []string{
				"explore: spec comment #1",
				"plan: plan comment #1",
				"code: commit to issuesmith/issue-1",
				fmt.Sprintf("code: pull request #%d", pr.Number),
			}, writes(rec))
			require.Contains(t, h.botComments()["progress"][0].Body, link)

			// A review comment: a round of its own in the same session.
			rc := h.gh.AddReviewComment(owner, name, pr.Number, ghtest.ReviewComment{User: "alice", Path: "greet.go", Line: 2, Body: "@issuesmith say hi"})
			require.NoError(t, h.event(workflow.ReviewComment, func(ev *workflow.Event) {
				ev.Number, ev.CommentID, ev.Body = pr.Number, rc, "@issuesmith say hi"
			}))
			h.eventually(func() bool {
				w := writes(runSession(t, st, run.ID))
				return len(w) == 6 && !runSession(t, st, run.ID).Session.Running()
			}, "condition never held")
			rec = runSession(t, st, run.ID)
			require.Equal(t, []string{"revise 1: commit to issuesmith/issue-1", fmt.Sprintf("revise 1: review reply #%d comment %d", pr.Number, rc)},
				writes(rec)[4:])
			require.Equal(t, store.StateDone, rec.Session.State, "the round ended: the session is ended again")
			require.Zero(t, failures.Load())

			// Uninstalled: the installation's sessions go with it.
			require.NoError(t, h.eng.Uninstalled(t.Context(), h.gh.Installation(), nil))
			_, err = st.Session(t.Context(), sess.ID)
			require.ErrorIs(t, err, store.ErrNotFound)
			evs, err := st.SessionEvents(t.Context(), sess.ID, 0, 0)
			require.NoError(t, err)
			require.Empty(t, evs)
		})
	}
}

// A process that goes away mid-code resumes the run: the session holds the
// finished steps' events once, and the code step's writes once.
func TestRestartMidCodeRecordsEachWriteOnce(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{})
	h := newHarness(t, &agents{implementHit: hit, block: true})
	withSessions(h)
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	<-hit
	h.stop(200 * time.Millisecond)
	h.agents.mu.Lock()
	h.agents.block, h.agents.implementHit = false, nil
	h.agents.mu.Unlock()
	h.start()
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitJobsDone()
	rec := runSession(t, h.st, run.ID)
	require.Equal(t, []string{"explore: spec comment #1", "plan: plan comment #1", "code: commit to issuesmith/issue-1",
		fmt.Sprintf("code: pull request #%d", h.gh.PullRequests(owner, name)[0].Number)}, writes(rec))
	seqs := map[int64]bool{}
	for _, e := range rec.Events {
		require.False(t, seqs[e.Seq], "event %d stored twice", e.Seq)
		seqs[e.Seq] = true
		if e.Stage == session.StageCode {
			require.Equal(t, 2, e.Attempt, "the code step's events are the resumed attempt's")
		}
	}
}

// A session store that fails (its tables gone) never fails the run: the
// run ends with its pull request, each failure counted, no link shown.
func TestFailingSessionStoreLeavesTheRunSuccessful(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	failures := withSessions(h)
	for _, table := range []string{"session_events", "session_steps", "session_blobs", "sessions"} {
		_, err := h.st.DB().ExecContext(t.Context(), "DROP TABLE "+table)
		require.NoError(t, err)
	}
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitProgress("issuesmith: done")
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	require.Positive(t, failures.Load(), "every failure is counted")
	require.NotContains(t, h.botComments()["progress"][0].Body, "View session")
}
