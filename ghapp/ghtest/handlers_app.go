package ghtest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// handlers maps each served operation to its handler; they run with s.mu held.
var handlers = map[string]func(c *call) response{
	"GET /app":                 getApp,
	"GET /app/hook/deliveries": listHookDeliveries,
	"POST /app/hook/deliveries/{delivery_id}/attempts":                             redeliverHook,
	"POST /app/installations/{installation_id}/access_tokens":                      createToken,
	"POST /app-manifests/{code}/conversions":                                       convertManifest,
	"GET /repos/{owner}/{repo}":                                                    getRepo,
	"GET /repos/{owner}/{repo}/contents/{path}":                                    getContents,
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission":                getPermission,
	"GET /repos/{owner}/{repo}/issues/{issue_number}":                              getIssue,
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":                     listComments,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":                    createComment,
	"GET /repos/{owner}/{repo}/issues/comments/{comment_id}":                       getComment,
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":                     editComment,
	"POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions":            reactComment,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/reactions":                   reactIssue,
	"POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions":             reactReviewComment,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/labels":                      addLabels,
	"DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}":             removeLabel,
	"GET /repos/{owner}/{repo}/pulls":                                              listPulls,
	"POST /repos/{owner}/{repo}/pulls":                                             createPull,
	"GET /repos/{owner}/{repo}/pulls/{pull_number}":                                getPull,
	"PATCH /repos/{owner}/{repo}/pulls/{pull_number}":                              editPull,
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers":           requestReviewers,
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/comments":                       listReviewComments,
	"GET /repos/{owner}/{repo}/pulls/comments/{comment_id}":                        getReviewComment,
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies": replyReviewComment,
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":                           listCheckRuns,
	"GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations":              listAnnotations,
	"GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs":                         jobLogs,
}

func getApp(c *call) response {
	o := c.s.opts
	return ok(http.StatusOK, obj{"id": o.AppID, "slug": o.Slug, "node_id": "A_1", "name": o.Slug,
		"owner": userObj("issuesmith-org"), "permissions": obj{}, "events": []string{}})
}

func createToken(c *call) response {
	inst, _ := strconv.ParseInt(c.param("installation_id"), 10, 64)
	if c.s.st.uninstalled[inst] { // GitHub's answer once the App is uninstalled
		return errorResp(http.StatusNotFound, "Not Found")
	}
	known := inst == c.s.opts.Installation || c.s.st.installed(inst)
	for _, rp := range c.s.st.repos {
		known = known || rp.Installation == inst
	}
	if !known {
		c.fail("no installation %d", inst)
		return errorResp(http.StatusNotFound, "Not Found")
	}
	tok, exp := c.s.newToken(inst)
	return ok(http.StatusCreated, obj{"token": tok, "expires_at": ts(exp), "repository_selection": "all",
		"permissions": obj{"contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read", "checks": "read", "actions": "read"}})
}

// repoOf returns the repository the call names (authentication checked it).
func (c *call) repoOf() *repo { return c.s.st.repos[c.param("owner")+"/"+c.param("repo")] }

func (s *Server) repoObj(rp *repo) obj {
	o := obj{"id": rp.id, "node_id": "R_" + rp.Name, "name": rp.Name, "full_name": rp.Owner + "/" + rp.Name,
		"owner": userObj(rp.Owner), "private": false, "default_branch": rp.DefaultBranch,
		"html_url": "https://github.com/" + rp.Owner + "/" + rp.Name, "clone_url": rp.CloneURL,
		"url": s.apiURL("/repos/%s/%s", rp.Owner, rp.Name)}
	s.forkFields(o, rp)
	return o
}

func getRepo(c *call) response { return ok(http.StatusOK, c.s.repoObj(c.repoOf())) }

func getContents(c *call) response {
	rp := c.repoOf()
	p, err := url.PathUnescape(c.param("path"))
	if err != nil {
		p = c.param("path")
	}
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.DefaultBranch
	}
	data, found := rp.files[ref][p]
	if !found {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, obj{"type": "file", "encoding": "base64", "size": len(data), "name": path.Base(p),
		"path": p, "sha": "0000000000000000000000000000000000000000", "content": base64.StdEncoding.EncodeToString(data),
		"url": c.s.apiURL("/repos/%s/%s/contents/%s", rp.Owner, rp.Name, p)})
}

// permissions maps a role to the legacy permission field GitHub reports.
var permissions = map[string]string{"admin": "admin", "maintain": "write", "write": "write",
	"triage": "read", "read": "read", "none": "none"}

func getPermission(c *call) response {
	user := c.param("username")
	role, found := c.repoOf().perms[user]
	if !found {
		role = "read"
	}
	perm := permissions[role]
	if name, base, custom := strings.Cut(role, ":"); custom {
		role, perm = name, permissions[base]
	}
	return ok(http.StatusOK, obj{"permission": perm, "role_name": role, "user": userObj(user)})
}

// Uninstall removes installation id as uninstalling the App does: its
// tokens stop working and asking for a new one is answered 404 (which a bot
// must expect, so the fake does not count it as the bot's mistake).
func (s *Server) Uninstall(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.uninstalled[id] = true
	for k, t := range s.st.tokens {
		if t.installation == id {
			delete(s.st.tokens, k)
		}
	}
}
