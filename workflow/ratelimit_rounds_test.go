package workflow_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/workflow"
)

// Operations a round's limit is met at.
const (
	createCommentOp = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	getCommentOp    = "GET /repos/{owner}/{repo}/issues/comments/{comment_id}"
)

// requireSnoozed checks that a job was snoozed and that none used a second
// attempt or was discarded: a rate limit is waited out, never failed.
func requireSnoozed(t *testing.T, h *harness) {
	t.Helper()
	jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
	require.NoError(t, err)
	snoozed := 0
	for _, j := range jobs {
		require.NotEqual(t, "discarded", string(j.State), "%s job %d discarded", j.Kind, j.ID)
		require.LessOrEqual(t, j.Attempt, 1, "%s job %d: a snooze is no attempt", j.Kind, j.ID)
		if strings.Contains(string(j.Metadata), `"snoozes"`) {
			snoozed++
		}
	}
	require.NotZero(t, snoozed, "a job was snoozed")
}

// requireSnoozedNotFailed checks that the rate limit was met (a request
// answered status), that a job was snoozed for it, and that no job used an
// attempt or was discarded for it.
func requireSnoozedNotFailed(t *testing.T, h *harness, status int) {
	t.Helper()
	limited := 0
	for _, r := range h.gh.Requests() {
		if r.Status == status {
			limited++
		}
	}
	require.NotZero(t, limited, "the round met GitHub's rate limit (%d)", status)
	requireSnoozed(t, h)
	require.NotContains(t, h.botComments()["progress"][0].Body, waitingWords, "no waiting line left behind")
}

// TestRateLimitedReviseRoundResumes: a revise round (a conversation
// comment on the bot's PR) meets GitHub's rate limit after its commit is
// pushed — a 429 secondary limit with Retry-After on the reply — or the
// installation's primary limit spent (403, remaining 0) from the moment
// the round has read the spec, or from before it reads it — and resumes
// after the reset: the coder ran once, with the spec, one follow-up
// commit, one reply, no job discarded.
func TestRateLimitedReviseRoundResumes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		limit  func(h *harness) (until func() time.Time)
	}{
		{"429 secondary at the reply", http.StatusTooManyRequests, func(h *harness) func() time.Time {
			f := h.gh.SecondaryLimit(createCommentOp, http.StatusTooManyRequests, 3*time.Second, -1)
			h.gh.Inject(f)
			return func() time.Time { return f.Until }
		}},
		{"403 primary after the spec is read", http.StatusForbidden, func(h *harness) func() time.Time {
			return limitAfter(h, getCommentOp, spent(h), 1)
		}},
		{"403 primary before the spec is read", http.StatusForbidden, func(h *harness) func() time.Time {
			return limitAfter(h, "GET /repos/{owner}/{repo}/pulls", spent(h), 1) // the PR still open
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := &agents{}
			h := newHarness(t, ag)
			pr := h.openPR()
			before := h.branchCommits(pr.Head)
			comments := len(h.gh.Comments(owner, name, pr.Number))

			until := tc.limit(h)
			comment := h.gh.AddComment(owner, name, pr.Number, "alice", "@issuesmith please greet politely")
			require.NoError(t, h.event(workflow.Mention, func(ev *workflow.Event) {
				ev.Number, ev.CommentID, ev.Body = pr.Number, comment, "@issuesmith please greet politely"
			}))
			h.eventually(func() bool { return len(h.prReplies(pr.Number)) == 1 }, "condition never held")
			h.waitJobsDone()

			require.False(t, until().IsZero(), "the limit was met")
			require.False(t, time.Now().Before(until()), "the round waited for the reset")
			require.Contains(t, h.prReplies(pr.Number)["reply-comment-"+itoa(comment)], "Done in ")
			require.Equal(t, before+1, h.branchCommits(pr.Head), "one follow-up commit")
			require.Contains(t, h.branchFile(pr.Head, "greet.go"), "// review of the PR by alice: @issuesmith please greet politely")
			require.Len(t, h.gh.Comments(owner, name, pr.Number), comments+2, "the request and one reply")
			ag.mu.Lock()
			require.Len(t, ag.reviews, 1, "the coder ran once")
			require.NotEmpty(t, ag.reviews[0].Spec.Files, "the coder had the spec")
			ag.mu.Unlock()
			requireSnoozedNotFailed(t, h, tc.status)
		})
	}
}

// TestRateLimitedCIRoundResumes: a CI fix round (a failing check on the
// bot's PR) meets GitHub's rate limit — the installation's primary limit
// spent (403, remaining 0) from the moment the round's "working" CI
// comment is written or from before the job log is read, or a 429
// secondary limit with Retry-After on the round's result, after the
// push — and resumes after the reset: the coder ran once with the log,
// the plan and the spec, one "Fix CI" commit, one CI comment saying it
// was pushed, no job discarded.
func TestRateLimitedCIRoundResumes(t *testing.T) {
	t.Parallel()
	const (
		editCommentOp = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
		checkRunsOp   = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
	)
	for _, tc := range []struct {
		name   string
		status int
		limit  func(h *harness) (until func() time.Time)
	}{
		{"403 primary from the working comment", http.StatusForbidden, func(h *harness) func() time.Time {
			return limitAfter(h, createCommentOp, spent(h), 1)
		}},
		{"403 primary before the job log", http.StatusForbidden, func(h *harness) func() time.Time {
			return limitAfter(h, checkRunsOp, spent(h), 2) // the head's checks, then the base's
		}},
		{"429 secondary at the result", http.StatusTooManyRequests, func(h *harness) func() time.Time {
			// The "working" comment is created before the coder runs;
			// the round's result edits it after the push.
			return limitAfter(h, createCommentOp, func() ghtest.Fault {
				return h.gh.SecondaryLimit(editCommentOp, http.StatusTooManyRequests, 3*time.Second, -1)
			}, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, ag := ciHarness(t, "ci:\n  fix_rounds: 2\n")
			pr := h.openPR()
			head, base := h.head(pr.Head), h.head("main")
			h.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: head, Name: "test", Conclusion: "failure", Log: failingLog})
			h.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: base, Name: "test", Conclusion: "success"})
			commits := h.branchCommits(pr.Head)

			until := tc.limit(h)
			h.ciFinished(pr.Number, head)
			body := h.waitCI(pr.Number, "pushed") // ciComment fails on a second CI comment
			h.waitJobsDone()

			require.False(t, until().IsZero(), "the limit was met")
			require.False(t, time.Now().Before(until()), "the round waited for the reset")
			require.Contains(t, body, "**Round 1**: `test` failed on "+head[:7])
			require.Equal(t, commits+1, h.branchCommits(pr.Head), "one commit for the round")
			require.True(t, strings.HasPrefix(h.branchMessage(pr.Head), "Fix CI: test\n"), h.branchMessage(pr.Head))
			ag.mu.Lock()
			require.Len(t, ag.reviews, 1, "the coder ran once")
			rv := ag.reviews[0]
			ag.mu.Unlock()
			require.Contains(t, rv.Evidence, `greet_test.go:7: Hello("Ann")`, "the coder had the job log")
			require.NotNil(t, rv.Plan, "the coder had the plan")
			require.NotEmpty(t, rv.Spec.Files, "the coder had the spec")
			requireSnoozedNotFailed(t, h, tc.status)
		})
	}
}

// spent is the installation's primary limit spent for every request (403,
// remaining 0) until a reset 3 s ahead.
func spent(h *harness) func() ghtest.Fault {
	return func() ghtest.Fault {
		return h.gh.PrimaryLimit(ghtest.AnyOp, http.StatusForbidden, time.Now().Add(3*time.Second), -1)
	}
}

// limitAfter injects the fault limit makes once the nth request for op
// has been served, and returns the fault's end (zero until then).
func limitAfter(h *harness, op string, limit func() ghtest.Fault, nth int) func() time.Time {
	var until time.Time
	done := make(chan struct{})
	h.gh.OnServed(op, func(ghtest.Request) bool {
		if nth--; nth > 0 {
			return false
		}
		f := limit()
		until = f.Until
		h.gh.Inject(f)
		close(done)
		return true
	})
	return func() time.Time {
		select {
		case <-done:
			return until
		default:
			return time.Time{}
		}
	}
}
