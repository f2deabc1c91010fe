package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// The real `bot serve` records the run in its database: a session with the
// explore, plan and code stages, the model and tool calls, the edit, the
// checks and the pull request; the progress comment links the session page
// and, once the run is done, folds what the bot looked at (no prompt, within
// its bound).
func TestEndToEndRunKeepsASession(t *testing.T) {
	t.Parallel()
	model := scriptedModel(t, "testdata/e2e/session.yaml")
	e := newE2E(t, model.URL())
	e.git.Commit(t, e2eOwner+"/"+e2eRepo, "main", map[string]string{"go.mod": "module example.com/greet\n\ngo 1.22\n"}, "go.mod")
	e.env = append(e.env, "ISSUESMITH_PUBLIC_URL=https://bot.example.com",
		"ISSUESMITH_OAUTH_CLIENT_ID=Iv1.sessions", "ISSUESMITH_OAUTH_CLIENT_SECRET=sessions-oauth-secret")
	e.start()
	e.implement()
	require.NoError(t, e.stop())

	st, err := store.Open(t.Context(), filepath.Join(e.dir, "issuesmith.db"))
	require.NoError(t, err)
	defer st.Close()
	list, err := st.ListSessions(t.Context(), store.SessionFilter{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	rec, err := session.Load(t.Context(), st, list[0].ID)
	require.NoError(t, err)
	require.Equal(t, store.StateDone, rec.Session.State)
	require.EqualValues(t, 4, rec.Session.ModelCalls, "two explorer calls, the planner, the coder")
	t.Logf("session %d: %d events, %d bytes stored", rec.Session.ID, len(rec.Events), rec.Session.Bytes)

	stages := map[string]int{}
	var tools, edits, checks, writes []string
	for _, ev := range rec.Events {
		stages[ev.Stage]++
		switch {
		case ev.Tool != nil:
			tools = append(tools, ev.Stage+": "+ev.Tool.Name)
		case ev.Edit != nil:
			edits = append(edits, fmt.Sprintf("%s: %s applied=%v", ev.Stage, ev.Edit.Path, ev.Edit.Applied))
		case ev.Check != nil:
			checks = append(checks, fmt.Sprintf("%s ok=%v", ev.Check.Name, ev.Check.OK))
		case ev.GitHub != nil:
			writes = append(writes, ev.Stage+": "+ev.GitHub.What)
		case ev.Commit != nil:
			writes = append(writes, ev.Stage+": commit "+ev.Commit.Branch)
		}
	}
	for _, s := range []string{session.StageExplore, session.StagePlan, session.StageCode} {
		require.Positive(t, stages[s], "stage %s recorded", s)
	}
	require.Equal(t, []string{"explore: read_file", "explore: grep", "explore: submit_spec"}, tools)
	require.Equal(t, []string{"code: greet.go applied=true"}, edits)
	require.Contains(t, checks, "go build ok=true")
	require.Contains(t, checks, "go vet ok=true")
	require.Equal(t, []string{"explore: spec comment", "plan: plan comment", "code: commit issuesmith/issue-1", "code: pull request"}, writes)

	body := e.progress()
	require.Contains(t, body, fmt.Sprintf("[View session](https://bot.example.com/sessions/%d)", rec.Session.ID))
	_, fold, ok := strings.Cut(body, "<details><summary>What I looked at</summary>")
	require.True(t, ok, "the fold of a run that ended:\n%s", body)
	require.Contains(t, fold, "`greet.go` — Hello takes the name to greet.", "the file read, with the spec's verdict")
	require.Contains(t, fold, "grep `func Hello`")
	require.Contains(t, fold, "✅ go build")
	require.NotContains(t, fold, "You are", "no prompt")
	require.LessOrEqual(t, len(fold), session.MaxLookedAt)
	if os.Getenv("ISSUESMITH_E2E_LOGS") == "1" {
		t.Logf("progress comment:\n%s", body)
	}
}

// implement labels the issue, waits for the plan and comments /implement,
// then waits for the run to end with its pull request.
func (e *e2e) implement() {
	e.t.Helper()
	require.Equal(e.t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	id := e.gh.AddComment(e2eOwner, e2eRepo, e.issue, e2eUser, "/implement")
	require.Equal(e.t, http.StatusAccepted, e.deliver("issue_comment", "issue_comment.created.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		cm := obj(p, "comment")
		cm["id"], cm["body"] = id, "/implement"
		obj(cm, "user")["login"], obj(cm, "user")["type"] = e2eUser, "User"
	}))
	e.waitProgress("issuesmith: done")
}

// A session store that fails (its tables dropped under the running
// server) never fails the run: the pull request is opened, the failures
// are logged and counted in /metrics, and no link is shown.
func TestEndToEndFailingSessionStoreLeavesTheRunSuccessful(t *testing.T) {
	model := scriptedModel(t, "testdata/e2e/session.yaml")
	e := newE2E(t, model.URL())
	e.env = append(e.env, "ISSUESMITH_PUBLIC_URL=https://bot.example.com",
		"ISSUESMITH_OAUTH_CLIENT_ID=Iv1.sessions", "ISSUESMITH_OAUTH_CLIENT_SECRET=sessions-oauth-secret")
	e.start()
	db := openDB(t, e, "")
	for _, table := range []string{"session_events", "session_steps", "session_blobs", "sessions"} {
		_, err := db.Exec("DROP TABLE " + table)
		require.NoError(t, err)
	}
	e.implement()
	require.Len(t, e.gh.PullRequests(e2eOwner, e2eRepo), 1)
	require.NotContains(t, e.progress(), "View session")
	metrics := e.get("/metrics")
	m := regexp.MustCompile(`(?m)^issuesmith_session_record_failures_total (\d+)`).FindStringSubmatch(metrics)
	require.NotNil(t, m, "the failure metric")
	require.NotEqual(t, "0", m[1], "failures are counted")
	require.NoError(t, e.stop())
	e.mu.Lock()
	logs := e.logs.String()
	e.mu.Unlock()
	require.Contains(t, logs, "session: recording failed; the run goes on without it")
}
