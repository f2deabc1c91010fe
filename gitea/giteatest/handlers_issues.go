package giteatest

import (
	"net/http"
	"strings"
)

// handlers serves each operation of the description; they run with s.mu
// held, after authorize resolved the caller and the repository.
var handlers = map[string]func(*call) response{
	"GET /version":              getVersion,
	"GET /user":                 getUser,
	"GET /user/repos":           listMyRepos,
	"GET /repos/{owner}/{repo}": getRepo,
	"GET /repos/{owner}/{repo}/raw/{filepath}":                          getRaw,
	"GET /repos/{owner}/{repo}/issues":                                  listIssues,
	"GET /repos/{owner}/{repo}/issues/{index}":                          getIssue,
	"GET /repos/{owner}/{repo}/issues/{index}/comments":                 listComments,
	"POST /repos/{owner}/{repo}/issues/{index}/comments":                createComment,
	"GET /repos/{owner}/{repo}/issues/comments":                         listRepoComments,
	"GET /repos/{owner}/{repo}/issues/comments/{id}":                    getComment,
	"PATCH /repos/{owner}/{repo}/issues/comments/{id}":                  editComment,
	"POST /repos/{owner}/{repo}/issues/{index}/reactions":               react,
	"GET /repos/{owner}/{repo}/issues/{index}/labels":                   listLabels,
	"DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}":           removeLabel,
	"GET /repos/{owner}/{repo}/pulls":                                   listPulls,
	"POST /repos/{owner}/{repo}/pulls":                                  createPull,
	"GET /repos/{owner}/{repo}/pulls/{index}":                           getPull,
	"PATCH /repos/{owner}/{repo}/pulls/{index}":                         editPull,
	"GET /repos/{owner}/{repo}/pulls/{base}/{head}":                     getPullByBranches,
	"POST /repos/{owner}/{repo}/pulls/{index}/requested_reviewers":      requestReviewers,
	"GET /repos/{owner}/{repo}/pulls/{index}/reviews":                   listReviews,
	"GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments":     listReviewComments,
	"GET /repos/{owner}/{repo}/commits/{ref}/status":                    combinedStatus,
	"POST /repos/{owner}/{repo}/statuses/{sha}":                         createStatus,
	"GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": getPermission,
	"GET /repos/{owner}/{repo}/hooks":                                   listHooks,
	"POST /repos/{owner}/{repo}/hooks":                                  createHook,
	"GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs":              getJobLog,
}

// issueOr404 is the route's issue; Gitea answers a missing one with 404
// on these routes.
func (c *call) issueOr404() (*issue, response, bool) {
	is := c.repo.issue(c.intParam("index"))
	if is == nil {
		return nil, errorResp(http.StatusNotFound, ""), false
	}
	return is, response{}, true
}

// issueOr500 is the route's issue where Gitea 1.26 answers a missing one
// with 500 (the comment routes: GetIssueByIndex's error is not told apart),
// with no message unless the caller is a site admin (production mode).
func (c *call) issueOr500() (*issue, response, bool) {
	is := c.repo.issue(c.intParam("index"))
	if is != nil {
		return is, response{}, true
	}
	msg := ""
	if u := c.s.st.users[lower(c.user)]; u != nil && u.admin {
		msg = "issue does not exist [id: 0, repo_id: " + itoa(int(c.repo.id)) + ", index: " + c.param("index") + "]"
	}
	return nil, errorResp(http.StatusInternalServerError, msg), false
}

func getIssue(c *call) response {
	is, resp, found := c.issueOr404()
	if !found {
		return resp
	}
	return ok(http.StatusOK, c.s.issueObj(c.repo, is))
}

func listComments(c *call) response {
	is, resp, found := c.issueOr500()
	if !found {
		return resp
	}
	out := []obj{}
	for _, cm := range is.comments {
		out = append(out, c.s.commentObj(c.repo, is, cm))
	}
	r := ok(http.StatusOK, out)
	r.header = http.Header{"X-Total-Count": {itoa(len(out))}}
	return r
}

func createComment(c *call) response {
	is, resp, found := c.issueOr500()
	if !found {
		return resp
	}
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	now := c.s.opts.Now()
	cm := &comment{id: c.s.st.id(), user: c.user, body: in.Body, created: now, updated: now}
	is.comments = append(is.comments, cm)
	is.updated = now
	return ok(http.StatusCreated, c.s.commentObj(c.repo, is, cm))
}

func getComment(c *call) response {
	is, cm := c.repo.comment(int64(c.intParam("id")))
	if cm == nil {
		return errorResp(http.StatusNotFound, "")
	}
	return ok(http.StatusOK, c.s.commentObj(c.repo, is, cm))
}

func editComment(c *call) response {
	is, cm := c.repo.comment(int64(c.intParam("id")))
	if cm == nil {
		return errorResp(http.StatusNotFound, "")
	}
	if cm.user != c.user {
		if resp, allowed := c.requireWrite(); !allowed {
			return resp
		}
	}
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	if in.Body != cm.body {
		cm.edits++
	}
	cm.body, cm.updated = in.Body, c.s.opts.Now()
	return ok(http.StatusOK, c.s.commentObj(c.repo, is, cm))
}

func react(c *call) response {
	is, resp, found := c.issueOr404()
	if !found {
		return resp
	}
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	key := c.user + ":" + in.Content
	body := obj{"user": c.s.userObj(c.user), "content": in.Content, "created_at": ts(c.s.opts.Now())}
	for _, r := range is.reactions {
		if r == key {
			return ok(http.StatusOK, body) // Gitea: an existing reaction is answered 200
		}
	}
	is.reactions = append(is.reactions, key)
	return ok(http.StatusCreated, body)
}

func listLabels(c *call) response {
	is, resp, found := c.issueOr404()
	if !found {
		return resp
	}
	return ok(http.StatusOK, c.s.labelsObj(c.repo, is))
}

func removeLabel(c *call) response {
	is, resp, found := c.issueOr404()
	if !found {
		return resp
	}
	if resp, allowed := c.requireWrite(); !allowed {
		return resp
	}
	id := int64(c.intParam("id"))
	l := c.repo.label(id)
	if l == nil {
		return errorResp(http.StatusUnprocessableEntity, "label does not exist [label_id: "+c.param("id")+"]")
	}
	kept := is.labels[:0]
	for _, x := range is.labels {
		if x != id {
			kept = append(kept, x)
		}
	}
	if len(kept) != len(is.labels) {
		is.updated = c.s.opts.Now() // Gitea records the removal as a comment, which moves the issue
	}
	is.labels = kept
	return response{status: http.StatusNoContent}
}

func lower(s string) string { return strings.ToLower(s) }
