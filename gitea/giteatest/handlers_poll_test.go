package giteatest

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a test's Options.Now, moved by the test.
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

// get is a GET with the answer's headers, its body decoded into out.
func get(t *testing.T, srv *Server, token, path string, out any) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/v1"+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), string(b))
	}
	return resp.StatusCode, resp.Header
}

type listed struct {
	Number   int                              `json:"number"`
	ID       int64                            `json:"id"`
	FullName string                           `json:"full_name"`
	Body     string                           `json:"body"`
	IssueURL string                           `json:"issue_url"`
	PRURL    string                           `json:"pull_request_url"`
	Updated  string                           `json:"updated_at"`
	Perm     struct{ Admin, Push, Pull bool } `json:"permissions"`
	PullMeta *struct{}                        `json:"pull_request"`
	Labels   []struct{ Name string }
}

func numbers(items []listed) []int {
	var out []int
	for _, it := range items {
		out = append(out, it.Number)
	}
	return out
}

// GET /user/repos is the repositories the caller owns or collaborates on
// (a public one it may only read is not among them), by name, with its
// permissions; Gitea asks the user scope and the repository scope both.
func TestUserReposAreOwnedOrCollaborated(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "zeta"})
	srv.AddRepo(Repo{Owner: "bot", Name: "alpha", Private: true})
	srv.AddRepo(Repo{Owner: "o", Name: "public"})
	srv.AddRepo(Repo{Owner: "o", Name: "secret", Private: true})
	tok := srv.AddToken("bot", "read:user", "write:repository")
	srv.SetPermission("o", "zeta", "bot", "write")

	var repos []listed
	status, h := get(t, srv, tok, "/user/repos", &repos)
	require.Equal(t, 200, status)
	require.Len(t, repos, 2)
	assert.Equal(t, "bot/alpha", repos[0].FullName)
	assert.True(t, repos[0].Perm.Admin, "the owner")
	assert.Equal(t, "o/zeta", repos[1].FullName)
	assert.True(t, repos[1].Perm.Push)
	assert.False(t, repos[1].Perm.Admin)
	assert.Equal(t, "2", h.Get("X-Total-Count"))
	assert.Empty(t, h.Get("Link"))

	status, h = get(t, srv, tok, "/user/repos?limit=1", &repos)
	require.Equal(t, 200, status)
	require.Len(t, repos, 1)
	assert.Contains(t, h.Get("Link"), `rel="next"`)

	var msg struct{ Message string }
	status, _ = get(t, srv, srv.AddToken("bot", "write:repository"), "/user/repos", &msg)
	assert.Equal(t, 403, status, "the /user group's scope")
	assert.Contains(t, msg.Message, "required=[read:user]")
	status, _ = get(t, srv, srv.AddToken("bot", "read:user"), "/user/repos", &msg)
	assert.Equal(t, 403, status, "the route's own scope")
	assert.Contains(t, msg.Message, "required=[read:repository]")
	status, _ = get(t, srv, "", "/user/repos", &msg)
	assert.Equal(t, 401, status)
}

// A repository's issue list keeps state, type, since (updated at or after,
// to the second) and labels (all of those that exist), newest first, in
// pages.
func TestIssueListFilters(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clk := &clock{t: t0}
	srv := New(t, Options{Now: clk.now})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	tok := srv.AddToken("bot", "read:issue")
	old := srv.AddIssue("o", "r", Issue{Title: "old", User: "alice", Labels: []string{"bug"}})
	clk.set(t0.Add(time.Hour))
	both := srv.AddIssue("o", "r", Issue{Title: "both", User: "alice", Labels: []string{"bug", "ui"}})
	pr := srv.AddPull("o", "r", Pull{Title: "pr", User: "alice", Head: "x", HeadSHA: "1111111", Base: "main", BaseSHA: "2222222"})
	shut := srv.AddIssue("o", "r", Issue{Title: "shut", User: "alice"})
	srv.CloseIssue("o", "r", shut)

	since := "&since=" + t0.Add(time.Hour).Format(time.RFC3339)
	var items []listed
	get(t, srv, tok, "/repos/o/r/issues?state=open&type=issues"+since, &items)
	assert.Equal(t, []int{both}, numbers(items), "the pull request and the closed issue are left out")

	clk.set(t0.Add(2 * time.Hour))
	srv.AddComment("o", "r", old, "alice", "bump")
	_, h := get(t, srv, tok, "/repos/o/r/issues?state=open&type=issues"+since, &items)
	assert.Equal(t, []int{both, old}, numbers(items), "a comment moves the issue; newest created first")
	assert.Equal(t, "2", h.Get("X-Total-Count"))
	assert.Equal(t, t0.Add(2*time.Hour).Format(time.RFC3339), items[1].Updated)

	get(t, srv, tok, "/repos/o/r/issues?type=issues&labels=bug,ui", &items)
	assert.Equal(t, []int{both}, numbers(items), "every label named")
	get(t, srv, tok, "/repos/o/r/issues?type=issues&labels=bug,nope", &items)
	assert.Equal(t, []int{both, old}, numbers(items), "a name that does not exist is dropped")
	get(t, srv, tok, "/repos/o/r/issues?state=closed", &items)
	assert.Equal(t, []int{shut}, numbers(items))
	get(t, srv, tok, "/repos/o/r/issues?state=all&type=pulls", &items)
	assert.Equal(t, []int{pr}, numbers(items))
	require.NotNil(t, items[0].PullMeta)
	get(t, srv, tok, "/repos/o/r/issues?state=all", &items)
	assert.Equal(t, []int{shut, pr, both, old}, numbers(items))

	_, h = get(t, srv, tok, "/repos/o/r/issues?type=issues&limit=1&page=2", &items)
	assert.Equal(t, []int{old}, numbers(items))
	assert.Equal(t, "2", h.Get("X-Total-Count"))
	assert.Empty(t, h.Get("Link"), "the last page")
	_, h = get(t, srv, tok, "/repos/o/r/issues?type=issues&limit=1", &items)
	assert.Contains(t, h.Get("Link"), `rel="next"`)
}

// A repository's comment list is every comment of its issues and pull
// requests updated since (an edit moves a comment, not its issue), oldest
// first, with Gitea's URLs: a pull request's comment has pull_request_url
// and an empty issue_url; pages are told by X-Total-Count alone.
func TestRepoCommentList(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clk := &clock{t: t0}
	srv := New(t, Options{Now: clk.now})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	tok := srv.AddToken("bot", "read:issue")
	is := srv.AddIssue("o", "r", Issue{Title: "i", User: "alice"})
	pr := srv.AddPull("o", "r", Pull{Title: "p", User: "bot", Head: "x", HeadSHA: "1111111", Base: "main", BaseSHA: "2222222"})
	early := srv.AddComment("o", "r", is, "alice", "early")
	clk.set(t0.Add(time.Hour))
	onPR := srv.AddComment("o", "r", pr, "alice", "@bot hi")
	onIssue := srv.AddComment("o", "r", is, "alice", "/plan")
	srv.AddReview("o", "r", pr, Review{User: "alice", State: "COMMENT", Body: "a review is no comment here"})
	gone := srv.AddIssue("o", "r", Issue{Title: "gone", User: "alice"})
	srv.AddComment("o", "r", gone, "alice", "on a deleted issue")
	srv.DeleteIssue("o", "r", gone)

	since := "?since=" + t0.Add(time.Hour).Format(time.RFC3339)
	var items []listed
	_, h := get(t, srv, tok, "/repos/o/r/issues/comments"+since, &items)
	require.Len(t, items, 2)
	assert.Equal(t, onPR, items[0].ID)
	assert.Equal(t, srv.URL()+"/o/r/pulls/2", items[0].PRURL)
	assert.Empty(t, items[0].IssueURL)
	assert.Equal(t, onIssue, items[1].ID)
	assert.Equal(t, srv.URL()+"/o/r/issues/1", items[1].IssueURL)
	assert.Empty(t, items[1].PRURL)
	assert.Equal(t, "2", h.Get("X-Total-Count"))

	clk.set(t0.Add(2 * time.Hour))
	srv.EditComment("o", "r", early, "early, edited")
	_, h = get(t, srv, tok, "/repos/o/r/issues/comments"+since+"&limit=1", &items)
	require.Len(t, items, 1)
	assert.Equal(t, early, items[0].ID, "edited since, and still first by its creation")
	assert.Equal(t, "3", h.Get("X-Total-Count"))
	assert.Empty(t, h.Get("Link"), "Gitea sends no Link on this list")

	var issues []listed
	get(t, srv, tok, "/repos/o/r/issues?type=issues&since="+t0.Add(2*time.Hour).Format(time.RFC3339), &issues)
	assert.Empty(t, issues, "an edit does not move the issue")
}

// The queries are checked too: a value outside the description's enum or
// format fails the test, a since Gitea cannot parse is its 422, and a
// filter the fake does not keep fails the test rather than be ignored.
func TestPollQueriesAreChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, want string
		status           int
	}{
		{"bad state", "/repos/o/r/issues?state=shut", "would be rejected by Gitea", 422},
		{"bad type", "/repos/o/r/issues?type=prs", "would be rejected by Gitea", 422},
		{"bad page", "/repos/o/r/issues/comments?page=two", "would be rejected by Gitea", 422},
		{"since not a date-time", "/repos/o/r/issues/comments?since=2026-05-01", "would be rejected by Gitea", 422},
		{"filter not kept", "/repos/o/r/issues?q=hello", "does not filter by q", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{T: t}
			srv := New(rec, Options{})
			srv.AddRepo(Repo{Owner: "o", Name: "r"})
			status, _ := get(t, srv, srv.AddToken("o", "all"), tc.path, nil)
			assert.Equal(t, tc.status, status)
			errs := rec.got()
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0], tc.want)
		})
	}
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	status, _ := get(t, srv, srv.AddToken("o", "all"), "/repos/o/r/issues/comments?since=2026-02-30T10:00:00Z", nil)
	assert.Equal(t, 422, status, "the description's pattern lets the 30th of February by; Go's time.Parse, as Gitea's, does not")
}
