package giteapoll_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/giteapoll"
	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

// clock is the fake Gitea's Options.Now, set by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// TestPassOnTheFake is TestPassFindsWhatTheWebhooksMissed on the fake
// Gitea, fast: the labelled issue's labels as they are now, a person's
// command (under the key its delivery would record), a person's mention
// of the bot on the bot's pull request and the ended status of its head
// are handed on; the bot's own comment, a plain comment, a mention on
// someone else's pull request, an issue not updated since, and a
// repository the bot cannot reach are not; a second pass hands on nothing
// new. Once with the client's pages, once a page per item (the comment
// list's pages are told by X-Total-Count alone).
func TestPassOnTheFake(t *testing.T) {
	t.Parallel()
	for name, pageSize := range map[string]int{"client pages": 0, "one per page": 1} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			passOnTheFake(t, pageSize)
		})
	}
}

func passOnTheFake(t *testing.T, pageSize int) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clk := &clock{t: t0.Add(-time.Hour)}
	srv := giteatest.New(t, giteatest.Options{Now: clk.now})
	srv.AddRepo(giteatest.Repo{Owner: "alice", Name: "hello"})
	srv.AddRepo(giteatest.Repo{Owner: "alice", Name: "elsewhere"})
	botTok := srv.AddToken("issuesmith", "write:repository", "write:issue", "read:user")
	srv.SetPermission("alice", "hello", "issuesmith", "admin")
	stale := srv.AddIssue("alice", "hello", giteatest.Issue{Title: "Old", User: "alice", Labels: []string{"issuesmith"}})
	srv.AddComment("alice", "elsewhere", srv.AddIssue("alice", "elsewhere", giteatest.Issue{Title: "x", User: "alice"}),
		"alice", "/plan")

	clk.set(t0)
	since := t0.Add(-time.Minute)
	n := srv.AddIssue("alice", "hello", giteatest.Issue{Title: "Greet people by name", Body: "Hello() should take a name.",
		User: "alice", Labels: []string{"issuesmith"}})
	plan := srv.AddComment("alice", "hello", n, "alice", "/plan")
	srv.AddComment("alice", "hello", n, "alice", "thanks")
	srv.AddComment("alice", "hello", n, "issuesmith", "/stop (the bot's own)")
	head := strings.Repeat("a", 40)
	pr := srv.AddPull("alice", "hello", giteatest.Pull{Title: "WIP: x", User: "issuesmith", Head: "issuesmith/issue-1",
		HeadSHA: head, Base: "main", BaseSHA: strings.Repeat("0", 40)})
	other := srv.AddPull("alice", "hello", giteatest.Pull{Title: "mine", User: "alice", Head: "alice-branch",
		HeadSHA: strings.Repeat("b", 40), Base: "main", BaseSHA: strings.Repeat("0", 40)})
	srv.AddComment("alice", "hello", pr, "alice", "@issuesmith greet politely")
	srv.AddComment("alice", "hello", other, "alice", "@issuesmith look")
	srv.SetStatus("alice", "hello", head, "ci", giteatest.Status{State: "failure", Context: "test"})

	c, err := gitea.New(srv.URL(), botTok, gitea.Options{PageSize: pageSize})
	require.NoError(t, err)
	in := &intake{keys: map[string]bool{}}
	o := giteapoll.Options{Since: since, Bot: "issuesmith", InstallationID: -1}
	rep, err := giteapoll.Pass(t.Context(), c, in, o)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Repos, "alice/elsewhere is not the bot's")
	require.Equal(t, 1, rep.Issues, "issue #%d was not updated since", stale)
	require.Equal(t, 5, rep.Comments)
	require.Equal(t, 1, rep.PullRequests)
	kinds := map[workflow.EventKind]workflow.Event{}
	for _, ev := range in.events {
		require.Equal(t, int64(-1), ev.InstallationID)
		require.Equal(t, "alice", ev.Owner)
		require.Equal(t, "hello", ev.Repo)
		kinds[ev.Kind] = ev
	}
	require.Len(t, in.events, 4, "%+v", in.events)
	require.Equal(t, n, kinds[workflow.LabelsSet].Number)
	require.Equal(t, []string{"issuesmith"}, kinds[workflow.LabelsSet].Labels)
	require.Equal(t, workflow.CmdPlan, kinds[workflow.CommandGiven].Command)
	require.Equal(t, n, kinds[workflow.CommandGiven].Number)
	require.False(t, kinds[workflow.CommandGiven].IsPR)
	require.True(t, kinds[workflow.CommandGiven].CheckWrite)
	require.True(t, in.keys[webhook.ObjectKey("gitea", "comment", plan, t0)], "the key the delivery records")
	require.Equal(t, pr, kinds[workflow.Mention].Number)
	require.True(t, kinds[workflow.Mention].IsPR)
	require.Equal(t, head, kinds[workflow.CIFinished].SHA)
	require.Equal(t, "failure", kinds[workflow.CIFinished].Action)
	require.Equal(t, 4, rep.Accepted)

	rep, err = giteapoll.Pass(t.Context(), c, in, o)
	require.NoError(t, err)
	require.Zero(t, rep.Accepted)
	require.Equal(t, 4, rep.Duplicates)
	require.Len(t, in.events, 4)
	require.Equal(t, 2, srv.Calls("GET /user/repos"))
}

// TestLabelWithinTheSecondOfAPass: a pass saw the issue without labels;
// the trigger label is added within the same second (Gitea's update time
// has whole seconds, so it does not move): the next pass still hands the
// new labels on, and the one after that nothing more. (Found by the
// end-to-end test: the pass at the bot's start ran just before the label.)
func TestLabelWithinTheSecondOfAPass(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	srv := giteatest.New(t, giteatest.Options{Now: func() time.Time { return t0 }})
	srv.AddRepo(giteatest.Repo{Owner: "alice", Name: "hello"})
	botTok := srv.AddToken("issuesmith", "write:repository", "write:issue", "read:user")
	srv.SetPermission("alice", "hello", "issuesmith", "admin")
	n := srv.AddIssue("alice", "hello", giteatest.Issue{Title: "Greet", User: "alice"})
	c, err := gitea.New(srv.URL(), botTok, gitea.Options{})
	require.NoError(t, err)
	in := &intake{keys: map[string]bool{}}
	o := giteapoll.Options{Since: t0.Add(-time.Minute), Bot: "issuesmith", InstallationID: -1}

	rep, err := giteapoll.Pass(t.Context(), c, in, o)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Accepted)
	require.Empty(t, in.events[0].Labels)

	srv.AddLabel("alice", "hello", n, "issuesmith")
	rep, err = giteapoll.Pass(t.Context(), c, in, o)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Accepted, "the labels changed within the second")
	require.Equal(t, []string{"issuesmith"}, in.events[1].Labels)

	rep, err = giteapoll.Pass(t.Context(), c, in, o)
	require.NoError(t, err)
	require.Zero(t, rep.Accepted)
}
