package giteatest

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// With a ref resolver the fake's branches are the git server's: a pull
// request opens from a branch only git has, its head follows a push, and
// a branch's commit statuses are those of its commit now.
func TestRefResolverFollowsTheGitServer(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	bot := srv.AddToken("bot", "write:repository")
	srv.SetPermission("o", "r", "bot", "write")
	var mu sync.Mutex
	git := map[string]string{"main": strings.Repeat("a", 40), "fix": strings.Repeat("b", 40)}
	set := func(ref, sha string) {
		mu.Lock()
		defer mu.Unlock()
		git[ref] = sha
	}
	srv.SetRefResolver(func(owner, name, ref string) string {
		if owner+"/"+name != "o/r" {
			return ""
		}
		mu.Lock()
		defer mu.Unlock()
		return git[ref]
	})

	status, body := send(t, srv, bot, "POST", "/repos/o/r/pulls", `{"title":"WIP: Fix","head":"fix","base":"main"}`)
	require.Equal(t, 201, status, body)
	var pr struct {
		Number int
		Head   struct{ SHA string }
		Base   struct{ SHA string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &pr))
	require.Equal(t, git["fix"], pr.Head.SHA)
	require.Equal(t, git["main"], pr.Base.SHA)

	set("fix", strings.Repeat("c", 40)) // a push
	status, body = send(t, srv, bot, "GET", "/repos/o/r/pulls/"+itoa(pr.Number), "")
	require.Equal(t, 200, status, body)
	require.NoError(t, json.Unmarshal([]byte(body), &pr))
	require.Equal(t, strings.Repeat("c", 40), pr.Head.SHA)
	pulls := srv.Pulls("o", "r")
	require.Len(t, pulls, 1)
	require.Equal(t, strings.Repeat("c", 40), pulls[0].HeadSHA)
	require.True(t, pulls[0].Draft, "WIP: is a draft")

	srv.SetStatus("o", "r", strings.Repeat("c", 40), "ci", Status{State: "failure", Context: "test"})
	status, body = send(t, srv, bot, "GET", "/repos/o/r/commits/fix/status", "")
	require.Equal(t, 200, status, body)
	require.Contains(t, body, `"state":"failure"`)

	status, _ = send(t, srv, bot, "POST", "/repos/o/r/pulls", `{"title":"x","head":"nowhere","base":"main"}`)
	require.Equal(t, 404, status, "a branch neither git nor the fake has")
}

// CanPush is Gitea's rule for a token as git's password: the repository
// scope at write level and a user who may write.
func TestCanPush(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	writer := srv.AddToken("bot", "write:repository", "write:issue")
	srv.SetPermission("o", "r", "bot", "admin")
	issuesOnly := srv.AddToken("bot", "write:issue")
	reader := srv.AddToken("someone", "all")
	require.True(t, srv.CanPush("o", "r", writer))
	require.True(t, srv.CanPush("o", "r", srv.AddToken("o", "all")), "the owner")
	require.False(t, srv.CanPush("o", "r", issuesOnly), "no repository scope")
	require.False(t, srv.CanPush("o", "r", reader), "a user who may only read")
	require.False(t, srv.CanPush("o", "r", "not-a-token"))
	require.False(t, srv.CanPush("o", "other", writer))
}

// A comment edited by a person (EditComment) or through the API counts
// its edits; Issue reads an issue back.
func TestEditsAndIssue(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	n := srv.AddIssue("o", "r", Issue{Title: "T", Body: "B", User: "alice", Labels: []string{"bug"}})
	id := srv.AddComment("o", "r", n, "bot", "- [ ] ok")
	require.Equal(t, "- [ ] ok", srv.EditComment("o", "r", id, "- [x] ok"))
	bot := srv.AddToken("bot", "write:issue")
	status, body := send(t, srv, bot, "PATCH", "/repos/o/r/issues/comments/"+itoa(int(id)), `{"body":"- [x] ok!"}`)
	require.Equal(t, 200, status, body)
	require.Equal(t, []Comment{{ID: id, User: "bot", Body: "- [x] ok!", Edits: 2}}, srv.Comments("o", "r", n))

	is, found := srv.Issue("o", "r", n)
	require.True(t, found)
	require.Equal(t, Issue{Number: n, State: "open", Title: "T", Body: "B", User: "alice", Labels: []string{"bug"}}, is)
	srv.DeleteIssue("o", "r", n)
	_, found = srv.Issue("o", "r", n)
	require.False(t, found)
}
