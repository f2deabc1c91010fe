package ghtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

func (c *call) issue(param string) *issue {
	n, _ := strconv.Atoi(c.param(param))
	return c.repoOf().issues[n]
}

func (s *Server) issueObj(rp *repo, is *issue) obj {
	labels := []obj{}
	for _, l := range is.Labels {
		labels = append(labels, obj{"id": idOf(l), "node_id": "L_" + l, "name": l, "color": "ededed", "default": false})
	}
	o := obj{"id": is.id, "node_id": "I_" + strconv.Itoa(is.Number), "number": is.Number, "title": is.Title,
		"body": is.Body, "state": is.State, "user": userObj(is.User), "labels": labels, "locked": false,
		"comments": len(s.st.issueComments(rp.Owner+"/"+rp.Name, is.Number)), "author_association": "OWNER",
		"created_at": ts(is.created), "updated_at": ts(is.created),
		"url":      s.apiURL("/repos/%s/%s/issues/%d", rp.Owner, rp.Name, is.Number),
		"html_url": "https://github.com/" + rp.Owner + "/" + rp.Name + "/issues/" + strconv.Itoa(is.Number)}
	if is.pr != nil {
		o["pull_request"] = obj{"url": s.apiURL("/repos/%s/%s/pulls/%d", rp.Owner, rp.Name, is.Number)}
	}
	return o
}

func (s *Server) commentObj(cm *comment) obj {
	o := obj{"id": cm.ID, "node_id": "IC_" + strconv.FormatInt(cm.ID, 10), "body": cm.Body, "user": userObj(cm.User),
		"created_at": ts(cm.created), "updated_at": ts(cm.updated), "author_association": "NONE",
		"url":       s.apiURL("/repos/%s/issues/comments/%d", cm.repo, cm.ID),
		"issue_url": s.apiURL("/repos/%s/issues/%d", cm.repo, cm.Number),
		"html_url":  "https://github.com/" + cm.repo + "/issues/" + strconv.Itoa(cm.Number) + "#issuecomment-" + strconv.FormatInt(cm.ID, 10)}
	if cm.bot {
		o["performed_via_github_app"] = obj{"id": s.opts.AppID, "slug": s.opts.Slug}
	}
	return o
}

func getIssue(c *call) response {
	is := c.issue("issue_number")
	if is == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, c.s.issueObj(c.repoOf(), is))
}

func listComments(c *call) response {
	if c.issue("issue_number") == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var out []obj
	for _, cm := range c.s.st.issueComments(c.param("owner")+"/"+c.param("repo"), c.issue("issue_number").Number) {
		out = append(out, c.s.commentObj(cm))
	}
	return list(c, out)
}

func createComment(c *call) response {
	is := c.issue("issue_number")
	if is == nil {
		c.fail("no issue %s", c.param("issue_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var in struct{ Body string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	cm := c.s.st.addComment(c.param("owner")+"/"+c.param("repo"), is.Number, c.s.BotLogin(), true, in.Body)
	return ok(http.StatusCreated, c.s.commentObj(cm))
}

// commentIn returns the comment named by comment_id if it is in the repository.
func (c *call) commentIn() *comment {
	id, _ := strconv.ParseInt(c.param("comment_id"), 10, 64)
	cm := c.s.st.comments[id]
	if cm == nil || cm.repo != c.param("owner")+"/"+c.param("repo") {
		return nil
	}
	return cm
}

func getComment(c *call) response {
	cm := c.commentIn()
	if cm == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, c.s.commentObj(cm))
}

func editComment(c *call) response {
	cm := c.commentIn()
	if cm == nil {
		c.fail("no comment %s", c.param("comment_id"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	if !cm.bot {
		c.fail("the bot edited comment %d written by %s", cm.ID, cm.User)
		return errorResp(http.StatusForbidden, "Resource not accessible by integration")
	}
	var in struct{ Body string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	if in.Body != cm.Body {
		cm.Body, cm.updated = in.Body, time.Now()
		cm.Edits++
	}
	return ok(http.StatusOK, c.s.commentObj(cm))
}

func reactionResp(c *call, list *[]string) response {
	var in struct{ Content string }
	if !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	status := http.StatusOK
	if react(list, c.s.BotLogin(), in.Content) {
		status = http.StatusCreated
	}
	return ok(status, obj{"id": c.s.st.id(), "node_id": "RE_1", "content": in.Content,
		"user": userObj(c.s.BotLogin()), "created_at": ts(time.Now())})
}

func reactComment(c *call) response {
	cm := c.commentIn()
	if cm == nil {
		c.fail("no comment %s", c.param("comment_id"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return reactionResp(c, &cm.Reactions)
}

func reactIssue(c *call) response {
	is := c.issue("issue_number")
	if is == nil {
		c.fail("no issue %s", c.param("issue_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return reactionResp(c, &is.Reactions)
}

func reactReviewComment(c *call) response {
	rc := c.reviewCommentIn()
	if rc == nil {
		c.fail("no review comment %s", c.param("comment_id"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return reactionResp(c, &rc.Reactions)
}

func labelsObj(is *issue) []obj {
	out := []obj{}
	for _, l := range is.Labels {
		out = append(out, obj{"id": idOf(l), "node_id": "L_" + l, "name": l, "color": "ededed", "default": false})
	}
	return out
}

func addLabels(c *call) response {
	is := c.issue("issue_number")
	if is == nil {
		c.fail("no issue %s", c.param("issue_number"))
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var names []string
	var wrapped struct{ Labels []string }
	if json.Unmarshal(c.body, &names) != nil {
		if !c.decode(&wrapped) {
			return errorResp(http.StatusBadRequest, "Problems parsing JSON")
		}
		names = wrapped.Labels
	}
	for _, n := range names {
		if !slices.Contains(is.Labels, n) {
			is.Labels = append(is.Labels, n)
		}
	}
	return ok(http.StatusOK, labelsObj(is))
}

func removeLabel(c *call) response {
	is := c.issue("issue_number")
	name, err := url.PathUnescape(c.param("name"))
	if err != nil {
		name = c.param("name")
	}
	if is == nil || !slices.Contains(is.Labels, name) {
		return errorResp(http.StatusNotFound, "Label does not exist")
	}
	is.Labels = slices.DeleteFunc(is.Labels, func(l string) bool { return l == name })
	return ok(http.StatusOK, labelsObj(is))
}
