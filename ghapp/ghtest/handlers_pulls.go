package ghtest

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func (s *Server) pullObj(rp *repo, is *issue) obj {
	reviewers := []obj{}
	for _, r := range is.pr.reviewers {
		reviewers = append(reviewers, userObj(r))
	}
	ref := func(branch string) obj {
		return obj{"ref": branch, "label": rp.Owner + ":" + branch, "sha": s.sha(rp, branch),
			"user": userObj(rp.Owner), "repo": s.repoObj(rp)}
	}
	head := ref(is.pr.head)
	if fork := s.headRepo(rp, is.pr); fork != rp {
		head = obj{"ref": is.pr.head, "label": fork.Owner + ":" + is.pr.head, "sha": s.sha(fork, is.pr.head),
			"user": userObj(fork.Owner), "repo": s.repoObj(fork)}
	}
	return obj{"id": is.pr.id, "node_id": prNodeID(is), "number": is.Number, "state": is.State,
		"title": is.Title, "body": is.Body, "user": userObj(is.User), "head": head, "base": ref(is.pr.base),
		"draft": is.pr.draft, "merged": is.pr.merged, "locked": false, "requested_reviewers": reviewers,
		"labels": labelsObj(is), "created_at": ts(is.created), "updated_at": ts(is.created),
		"url":      s.apiURL("/repos/%s/%s/pulls/%d", rp.Owner, rp.Name, is.Number),
		"html_url": "https://github.com/" + rp.Owner + "/" + rp.Name + "/pull/" + strconv.Itoa(is.Number)}
}

// prNodeID is a pull request's GraphQL node id (unique in the fake).
func prNodeID(is *issue) string { return "PR_kw" + strconv.FormatInt(is.pr.id, 10) }

func (c *call) pull() *issue {
	is := c.issue("pull_number")
	if is == nil || is.pr == nil {
		return nil
	}
	return is
}

func listPulls(c *call) response {
	rp := c.repoOf()
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	headOwner, head := splitHead(rp, q.Get("head"))
	var out []obj
	issues := rp.sortedIssues()
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Number > issues[j].Number }) // newest first
	for _, is := range issues {
		if is.pr == nil || (state != "all" && is.State != state) || (head != "" && (is.pr.head != head || !strings.EqualFold(c.s.headRepo(rp, is.pr).Owner, headOwner))) ||
			(q.Get("base") != "" && is.pr.base != q.Get("base")) {
			continue
		}
		out = append(out, c.s.pullObj(rp, is))
	}
	return list(c, out)
}

func createPull(c *call) response {
	rp := c.repoOf()
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	headOwner, head := splitHead(rp, in.Head)
	if headOwner == rp.Owner {
		headOwner = ""
	} else if !c.s.st.hasFork(headOwner, rp) {
		c.fail("head %q: %s has no fork of %s/%s", in.Head, headOwner, rp.Owner, rp.Name)
		return errorResp(http.StatusUnprocessableEntity, "Validation Failed")
	}
	if head == in.Base && headOwner == "" || in.Title == "" {
		c.fail("invalid pull request head %q base %q title %q", in.Head, in.Base, in.Title)
		return errorResp(http.StatusUnprocessableEntity, "Validation Failed")
	}
	for _, is := range rp.issues {
		if is.pr != nil && is.State == "open" && is.pr.head == head && strings.EqualFold(is.pr.headOwner, headOwner) {
			r := errorResp(http.StatusUnprocessableEntity, "Validation Failed")
			r.body.(obj)["errors"] = []obj{{"resource": "PullRequest", "code": "custom",
				"message": "A pull request already exists for " + c.s.headRepo(rp, is.pr).Owner + ":" + head + "."}}
			return r
		}
	}
	rp.nextNumber++
	is := &issue{Issue: Issue{Number: rp.nextNumber, Title: in.Title, Body: in.Body, User: c.s.BotLogin(), State: "open", IsPR: true},
		id: c.s.st.id(), created: time.Now(), pr: &pull{id: c.s.st.id(), head: head, headOwner: headOwner, base: in.Base, draft: in.Draft}}
	rp.issues[is.Number] = is
	return ok(http.StatusCreated, c.s.pullObj(rp, is))
}

func getPull(c *call) response {
	is := c.pull()
	if is == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, c.s.pullObj(c.repoOf(), is))
}

func editPull(c *call) response {
	is := c.pull()
	if is == nil {
		c.fail("no pull request %s", c.param("pull_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var in struct{ Title, Body, State, Base *string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	if in.Title != nil {
		is.Title = *in.Title
	}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.State != nil {
		is.State = *in.State
	}
	if in.Base != nil {
		is.pr.base = *in.Base
	}
	return ok(http.StatusOK, c.s.pullObj(c.repoOf(), is))
}

func requestReviewers(c *call) response {
	is := c.pull()
	if is == nil {
		c.fail("no pull request %s", c.param("pull_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var in struct{ Reviewers []string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	for _, r := range in.Reviewers {
		if strings.EqualFold(r, is.User) {
			c.fail("review requested from the pull request author %s", r)
			return errorResp(http.StatusUnprocessableEntity, "Review cannot be requested from pull request author.")
		}
		if !slices.Contains(is.pr.reviewers, r) {
			is.pr.reviewers = append(is.pr.reviewers, r)
		}
	}
	return ok(http.StatusCreated, c.s.pullObj(c.repoOf(), is))
}

func (s *Server) reviewCommentObj(rc *reviewComment) obj {
	o := obj{"id": rc.ID, "node_id": "PRRC_" + strconv.FormatInt(rc.ID, 10), "pull_request_review_id": rc.ID,
		"diff_hunk": "@@ -1 +1 @@", "path": rc.Path, "commit_id": "0000000000000000000000000000000000000000",
		"original_commit_id": "0000000000000000000000000000000000000000", "user": userObj(rc.User), "body": rc.Body,
		"created_at": ts(rc.created), "updated_at": ts(rc.created), "author_association": "NONE", "side": "RIGHT",
		"url":              s.apiURL("/repos/%s/pulls/comments/%d", rc.repo, rc.ID),
		"pull_request_url": s.apiURL("/repos/%s/pulls/%d", rc.repo, rc.Number),
		"html_url":         "https://github.com/" + rc.repo + "/pull/" + strconv.Itoa(rc.Number) + "#discussion_r" + strconv.FormatInt(rc.ID, 10),
		"_links":           obj{}}
	if rc.Line > 0 {
		o["line"] = rc.Line
	}
	if rc.StartLine > 0 {
		o["start_line"] = rc.StartLine
	}
	if rc.InReplyTo != 0 {
		o["in_reply_to_id"] = rc.InReplyTo
	}
	return o
}

func (c *call) reviewCommentIn() *reviewComment {
	id, _ := strconv.ParseInt(c.param("comment_id"), 10, 64)
	rc := c.s.st.reviewComments[id]
	if rc == nil || rc.repo != c.param("owner")+"/"+c.param("repo") {
		return nil
	}
	return rc
}

func listReviewComments(c *call) response {
	is := c.pull()
	if is == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var out []obj
	for _, rc := range c.s.st.prReviewComments(c.param("owner")+"/"+c.param("repo"), is.Number) {
		out = append(out, c.s.reviewCommentObj(rc))
	}
	return list(c, out)
}

func getReviewComment(c *call) response {
	rc := c.reviewCommentIn()
	if rc == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, c.s.reviewCommentObj(rc))
}

func replyReviewComment(c *call) response {
	is, target := c.pull(), c.reviewCommentIn()
	if is == nil || target == nil || target.Number != is.Number {
		c.fail("no review comment %s on pull request %s", c.param("comment_id"), c.param("pull_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var in struct{ Body string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	root := target.ID
	if target.InReplyTo != 0 {
		root = target.InReplyTo
	}
	rc := c.s.st.addReviewComment(target.repo, ReviewComment{Number: is.Number, User: c.s.BotLogin(), Path: target.Path,
		Line: target.Line, StartLine: target.StartLine, Body: in.Body, InReplyTo: root}, true)
	return ok(http.StatusCreated, c.s.reviewCommentObj(rc))
}
