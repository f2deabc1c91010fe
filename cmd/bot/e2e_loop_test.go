package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// TestEndToEndLoopGuardStopsAPingPong: another account keeps asking the
// bot for changes on its pull request, as a second bot answering each
// reply would. The real `bot serve`, with a loop guard of 2 an hour, does
// two revise rounds, then refuses: no third model call or commit, one
// comment that says why (said once: the fourth request gets no answer).
// A machine account the server lists as a bot (ISSUESMITH_BOTS) and
// another App's bot never start work, and the bot's own comments mention
// no one.
func TestEndToEndLoopGuardStopsAPingPong(t *testing.T) {
	t.Parallel()
	model := scriptedModel(t, "testdata/e2e/loop.yaml")
	e := newE2E(t, model.URL())
	const helper, listed = "review-helper", "ci-helper"
	e.env = append(e.env, "ISSUESMITH_LOOP_MAX_PER_HOUR=2", "ISSUESMITH_BOTS=renovate[bot],"+listed)
	for _, u := range []string{helper, listed} {
		e.gh.SetPermission(e2eOwner, e2eRepo, u, "write")
	}
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("issuesmith: done")
	prs := e.gh.PullRequests(e2eOwner, e2eRepo)
	require.Len(t, prs, 1)
	pr := prs[0]
	name := e2eOwner + "/" + e2eRepo
	asked := len(model.Requests())

	// comment posts a review comment on greet.go as user (of type kind)
	// and delivers it; it returns the comment's id.
	comment := func(user, kind, body string) int64 {
		t.Helper()
		rc := e.gh.AddReviewComment(e2eOwner, e2eRepo, pr.Number, ghtest.ReviewComment{User: user, Path: "greet.go", Line: 5, Body: body})
		status := e.deliver("pull_request_review_comment", "pull_request_review_comment.created.json",
			e.reviewComment(pr.Number, pr.Head, rc, body, user, kind))
		require.Less(t, status, 300, "delivery of %s's comment", user)
		return rc
	}
	replied := func(rc int64) bool { return len(e.botReplies(pr.Number, rc)) > 0 }
	loopComments := func() []ghtest.Comment {
		var out []ghtest.Comment
		for _, c := range e.gh.Comments(e2eOwner, e2eRepo, pr.Number) {
			if m, ok := ghtext.ParseMarker(c.Body); ok && m.Kind == "loop-guard" && c.User == e.gh.BotLogin() {
				out = append(out, c)
			}
		}
		return out
	}

	// Accounts that are bots never start work: the listed machine account
	// and another App's bot.
	comment(listed, "User", "@issuesmith bump the greeting")
	comment("other-app[bot]", "Bot", "@issuesmith bump the greeting")

	// Two rounds for the helper's requests, each a commit and a reply.
	for i, ask := range []string{"@issuesmith use a capital H in the greeting", "@issuesmith now say Hi instead"} {
		rc := comment(helper, "User", ask)
		e.await(60*time.Second, func() bool { return replied(rc) }, "round %d: no reply", i+1)
	}
	log := e.git.Log(t, name, pr.Head)
	require.Len(t, log, 4, "seed, the run's commit, two rounds")
	require.Contains(t, e.git.Files(t, name, pr.Head)["greet.go"], `return "Hi, " + name`)
	require.Len(t, model.Requests(), asked+2, "the bots' comments asked the model nothing")

	// The third request: refused, and said once on the pull request.
	third := comment(helper, "User", "@issuesmith now say Hey instead")
	e.await(60*time.Second, func() bool { return len(loopComments()) == 1 }, "the refusal was not said")
	said := loopComments()[0].Body
	require.Contains(t, said, "the loop guard stopped here.** This issue had 2 revise rounds in the last hour")
	require.Contains(t, said, "`ISSUESMITH_LOOP_MAX_PER_HOUR`")
	require.NotContains(t, said, "@", "the refusal mentions no one")

	// The fourth: refused without a word (the helper's answer to the
	// refusal would otherwise get one answer per message).
	comment(helper, "User", "@issuesmith please, say Hey")
	require.Eventually(t, func() bool {
		return strings.Contains(e.get("/metrics"), `issuesmith_jobs_total{outcome="revise",stage="loop_guard"} 2`)
	}, 60*time.Second, 25*time.Millisecond, "the fourth request was not refused")
	require.Len(t, loopComments(), 1, "said once in the hour")
	require.Equal(t, said, loopComments()[0].Body)
	require.False(t, replied(third), "no reply in the refused request's thread")
	require.Len(t, e.git.Log(t, name, pr.Head), 4, "no commit past the ceiling")
	require.Len(t, model.Requests(), asked+2, "no model call past the ceiling")
	require.Contains(t, e.get("/metrics"), `issuesmith_jobs_total{outcome="revise_said",stage="loop_guard"} 1`)
	require.NoError(t, e.stop())
}
