package giteatest

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The operations of a polling pass (giteapoll): the caller's repositories,
// and what changed in one since a time. Gitea's since and before compare
// whole seconds (updated_unix) and keep what was updated at or after since,
// at or before before.

// listMyRepos is Gitea 1.26's user.ListMyRepos: the repositories the
// caller owns or is a collaborator of (private ones too), by name, with
// the caller's permissions; Link and X-Total-Count. A site admin sees no
// more here than anyone else.
func listMyRepos(c *call) response {
	var mine []*repo
	for _, r := range c.s.st.repos {
		if strings.EqualFold(r.owner, c.user) || atLeast(r.perms[lower(c.user)], "read") {
			mine = append(mine, r)
		}
	}
	slices.SortFunc(mine, func(a, b *repo) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
	})
	items, h := page(c, mine, true)
	out := []obj{}
	for _, r := range items {
		out = append(out, c.s.repoObj(r, c.user))
	}
	resp := ok(http.StatusOK, out)
	resp.header = h
	return resp
}

// listIssues is Gitea 1.26's repo.ListIssues over the fake's issues: state
// (open when absent or unknown), type (issues or pulls; both when absent),
// since and before on the updated time, labels (names; an issue must carry
// every one that exists in the repository, whatever the description's
// "any" says, and names that do not exist are dropped, so only missing
// ones filter nothing), newest first; Link and X-Total-Count. The filters
// the fake does not keep (q, milestones, created_by, assigned_by,
// mentioned_by) fail the test.
func listIssues(c *call) response {
	q := c.r.URL.Query()
	for _, name := range []string{"q", "milestones", "created_by", "assigned_by", "mentioned_by"} {
		if q.Get(name) != "" {
			c.s.failf("%s: the fake does not filter by %s", c.op, name)
		}
	}
	since, before, resp, valid := beforeSince(q)
	if !valid {
		return resp
	}
	state := q.Get("state")
	if state != "all" && state != "closed" {
		state = "open"
	}
	var want []int64
	for _, name := range strings.Split(q.Get("labels"), ",") {
		for _, l := range c.repo.labels {
			if l.name == name && !slices.Contains(want, l.id) {
				want = append(want, l.id)
			}
		}
	}
	var all []*issue
	for n := c.repo.nextIndex; n >= 1; n-- {
		is := c.repo.issue(n)
		switch {
		case is == nil, state != "all" && is.state != state, !updatedIn(is.updated, since, before),
			q.Get("type") == "issues" && is.pr != nil, q.Get("type") == "pulls" && is.pr == nil:
			continue
		}
		if !containsAll(is.labels, want) {
			continue
		}
		all = append(all, is)
	}
	items, h := page(c, all, true)
	out := []obj{}
	for _, is := range items {
		out = append(out, c.s.issueObj(c.repo, is))
	}
	r := ok(http.StatusOK, out)
	r.header = h
	return r
}

// listRepoComments is Gitea 1.26's repo.ListRepoIssueComments: the
// comments of every issue and pull request of the repository (not the
// reviews nor their line comments: only comments of type comment), oldest
// first, since and before on the updated time; X-Total-Count and no Link.
func listRepoComments(c *call) response {
	since, before, resp, valid := beforeSince(c.r.URL.Query())
	if !valid {
		return resp
	}
	type found struct {
		is *issue
		cm *comment
	}
	var all []found
	for n := 1; n <= c.repo.nextIndex; n++ {
		is := c.repo.issue(n)
		if is == nil {
			continue
		}
		for _, cm := range is.comments {
			if updatedIn(cm.updated, since, before) {
				all = append(all, found{is, cm})
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.cm.created.Unix(), b.cm.created.Unix()), cmp.Compare(a.cm.id, b.cm.id))
	})
	items, h := page(c, all, false)
	out := []obj{}
	for _, f := range items {
		out = append(out, c.s.commentObj(c.repo, f.is, f.cm))
	}
	r := ok(http.StatusOK, out)
	r.header = h
	return r
}

// beforeSince reads since and before as Gitea's GetQueryBeforeSince does
// (RFC 3339, whole seconds; absent is no bound), answering a bad one with
// Gitea's 422 and the parse error.
func beforeSince(q url.Values) (since, before int64, resp response, valid bool) {
	parse := func(name string) (int64, error) {
		v := strings.TrimSpace(q.Get(name))
		if v == "" {
			return 0, nil
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil || t.IsZero() {
			return 0, err
		}
		return t.Unix(), nil
	}
	before, err := parse("before")
	if err == nil {
		since, err = parse("since")
	}
	if err != nil {
		return 0, 0, errorResp(http.StatusUnprocessableEntity, err.Error()), false
	}
	return since, before, response{}, true
}

// updatedIn is Gitea's updated_unix >= since and <= before (0: no bound).
func updatedIn(updated time.Time, since, before int64) bool {
	u := updated.Unix()
	return (since == 0 || u >= since) && (before == 0 || u <= before)
}

func containsAll(have, want []int64) bool {
	for _, id := range want {
		if !slices.Contains(have, id) {
			return false
		}
	}
	return true
}
