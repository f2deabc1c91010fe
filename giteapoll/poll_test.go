package giteapoll_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteaserver"
	"github.com/issuesmith/issuesmith/giteapoll"
	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

// intake is the workflow's Accept in memory, with its contract: the first
// key already recorded is returned and nothing is written.
type intake struct {
	mu     sync.Mutex
	keys   map[string]bool
	events []workflow.Event
}

func (in *intake) Accept(_ context.Context, keys []string, ev workflow.Event) (string, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, k := range keys {
		if in.keys[k] {
			return k, nil
		}
	}
	for _, k := range keys {
		in.keys[k] = true
	}
	in.events = append(in.events, ev)
	return "", nil
}

// TestPassFindsWhatTheWebhooksMissed runs a pass against a real Gitea where
// no webhook was ever sent: the labelled issue's labels, a person's command
// (under the key its delivery would record), a person's mention of the bot
// on the bot's pull request and the ended status of its head are handed on;
// the bot's own comment, a plain comment and a mention on someone else's
// pull request are not; a second pass hands on nothing new.
func TestPassFindsWhatTheWebhooksMissed(t *testing.T) {
	t.Parallel()
	srv := giteaserver.Start(t)
	alice := srv.User("alice", "write:repository,write:issue,write:user")
	botTok := srv.User("issuesmith", "write:repository,write:issue,read:user")
	srv.Repo(alice, "alice", "hello", map[string]string{"greet.go": "package greet\n"})
	srv.API(alice, "PUT", "/repos/alice/hello/collaborators/issuesmith", map[string]any{"permission": "admin"}, nil)
	srv.Label(alice, "alice", "hello", "issuesmith")
	since := time.Now().Add(-time.Minute)
	n := srv.Issue(alice, "alice", "hello", "Greet people by name", "Hello() should take a name.")
	srv.API(alice, "PUT", fmt.Sprintf("/repos/alice/hello/issues/%d/labels", n), map[string]any{"labels": []string{"issuesmith"}}, nil)
	var plan struct {
		ID      int64     `json:"id"`
		Updated time.Time `json:"updated_at"`
	}
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", n), map[string]any{"body": "/plan"}, &plan)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", n), map[string]any{"body": "thanks"}, nil)
	srv.API(botTok, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", n), map[string]any{"body": "/stop (the bot's own)"}, nil)
	srv.API(botTok, "POST", "/repos/alice/hello/contents", map[string]any{"branch": "main", "new_branch": "issuesmith/issue-1",
		"message": "x", "files": []map[string]any{{"operation": "update", "path": "greet.go", "content": "cGFja2FnZSBncmVldCAvLyB4Cg=="}}}, nil)
	var pr struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	}
	srv.API(botTok, "POST", "/repos/alice/hello/pulls", map[string]any{"title": "WIP: x", "head": "issuesmith/issue-1", "base": "main"}, &pr)
	srv.API(alice, "POST", "/repos/alice/hello/contents", map[string]any{"branch": "main", "new_branch": "alice-branch",
		"message": "y", "files": []map[string]any{{"operation": "update", "path": "greet.go", "content": "cGFja2FnZSBncmVldCAvLyB5Cg=="}}}, nil)
	var other struct {
		Number int `json:"number"`
	}
	srv.API(alice, "POST", "/repos/alice/hello/pulls", map[string]any{"title": "mine", "head": "alice-branch", "base": "main"}, &other)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", pr.Number), map[string]any{"body": "@issuesmith greet politely"}, nil)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", other.Number), map[string]any{"body": "@issuesmith look"}, nil)
	srv.API(alice, "POST", "/repos/alice/hello/statuses/"+pr.Head.SHA, map[string]any{"state": "failure", "context": "test"}, nil)

	in := &intake{keys: map[string]bool{}}
	o := giteapoll.Options{Since: since, Bot: "issuesmith", InstallationID: -1}
	rep, err := giteapoll.Pass(t.Context(), srv.Client(botTok), in, o)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Repos)
	kinds := map[workflow.EventKind]workflow.Event{}
	for _, ev := range in.events {
		require.Equal(t, int64(-1), ev.InstallationID)
		require.Equal(t, "alice", ev.Owner)
		kinds[ev.Kind] = ev
	}
	require.Len(t, in.events, 4, "%+v", in.events)
	require.Equal(t, []string{"issuesmith"}, kinds[workflow.LabelsSet].Labels)
	require.Equal(t, workflow.CmdPlan, kinds[workflow.CommandGiven].Command)
	require.True(t, kinds[workflow.CommandGiven].CheckWrite)
	require.True(t, in.keys[webhook.ObjectKey("gitea", "comment", plan.ID, plan.Updated)], "the key the delivery records")
	require.Equal(t, pr.Number, kinds[workflow.Mention].Number)
	require.Equal(t, pr.Head.SHA, kinds[workflow.CIFinished].SHA)
	require.Equal(t, 4, rep.Accepted)

	rep, err = giteapoll.Pass(t.Context(), srv.Client(botTok), in, o)
	require.NoError(t, err)
	require.Zero(t, rep.Accepted)
	require.Equal(t, 4, rep.Duplicates)
}
