package giteatest

import (
	"net/http"
	"strings"
)

func getVersion(c *call) response {
	return ok(http.StatusOK, obj{"version": c.s.opts.Version})
}

func getUser(c *call) response { return ok(http.StatusOK, c.s.userObj(c.user)) }

func getRepo(c *call) response { return ok(http.StatusOK, c.s.repoObj(c.repo, c.user)) }

func getRaw(c *call) response {
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	content, found := c.repo.files[ref][strings.Trim(c.param("filepath"), "/")]
	if !found {
		return errorResp(http.StatusNotFound, "")
	}
	return response{status: http.StatusOK, raw: []byte(content), ctype: "text/plain; charset=utf-8"}
}

func combinedStatus(c *call) response {
	sha, found := c.s.resolve(c.repo, c.param("ref"))
	if !found {
		return errorResp(http.StatusNotFound, "")
	}
	// The latest status of each context, newest first, as Gitea lists them.
	seen := map[string]bool{}
	var latest []*Status
	all := c.repo.statuses[sha]
	for i := len(all) - 1; i >= 0; i-- {
		if !seen[all[i].Context] {
			seen[all[i].Context] = true
			latest = append(latest, all[i])
		}
	}
	items, h := page(c, latest, true)
	var out []obj
	var states []string
	for _, st := range items {
		out = append(out, c.s.statusObj(st, c.s.opts.Now()))
		states = append(states, st.State)
	}
	body := obj{"state": combine(states), "sha": sha, "total_count": len(items),
		"repository": c.s.repoObj(c.repo, c.user),
		"commit_url": c.s.web("/api/v1/repos/%s/%s/commits/%s", c.repo.owner, c.repo.name, sha),
		"url":        c.s.web("/api/v1/repos/%s/%s/commits/%s/status", c.repo.owner, c.repo.name, sha)}
	if out != nil { // Gitea leaves statuses out (null) when there are none
		body["statuses"] = out
	}
	r := ok(http.StatusOK, body)
	r.header = h
	return r
}

// combine is Gitea's commitstatus.CommitStatusStates.Combine; no status
// at all is pending.
func combine(states []string) string {
	n := 0
	for _, s := range states {
		switch s {
		case "error", "failure", "warning":
			return "failure"
		case "success", "skipped":
			n++
		}
	}
	if n > 0 && n == len(states) {
		return "success"
	}
	return "pending"
}

func createStatus(c *call) response {
	if resp, allowed := c.requireWrite(); !allowed {
		return resp
	}
	var in struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	if in.Context == "" {
		in.Context = "default"
	}
	st := &Status{ID: c.s.st.id(), State: in.State, Context: in.Context, Description: in.Description,
		TargetURL: in.TargetURL, By: c.user}
	c.repo.statuses[c.param("sha")] = append(c.repo.statuses[c.param("sha")], st)
	return ok(http.StatusCreated, c.s.statusObj(st, c.s.opts.Now()))
}

func getPermission(c *call) response {
	who := c.param("collaborator")
	u := c.s.st.users[lower(c.user)]
	if !(u != nil && u.admin) && !strings.EqualFold(c.user, who) && !atLeast(c.repo.permission(&c.s.st, c.user), "admin") {
		return errorResp(http.StatusForbidden,
			"Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own")
	}
	if c.s.st.users[lower(who)] == nil {
		return errorResp(http.StatusNotFound, "user redirect does not exist [name: "+lower(who)+"]")
	}
	perm := c.repo.permission(&c.s.st, who)
	return ok(http.StatusOK, obj{"permission": perm, "role_name": perm, "user": c.s.userObj(who)})
}

func listHooks(c *call) response {
	if resp, allowed := c.requireAdmin(); !allowed {
		return resp
	}
	var all []obj
	for _, h := range c.repo.hooks {
		all = append(all, c.s.hookObj(h, c.s.opts.Now()))
	}
	items, h := page(c, all, false)
	r := ok(http.StatusOK, items)
	r.header = h
	return r
}

func createHook(c *call) response {
	if resp, allowed := c.requireAdmin(); !allowed {
		return resp
	}
	var in struct {
		Type         string            `json:"type"`
		Config       map[string]string `json:"config"`
		Events       []string          `json:"events"`
		Active       bool              `json:"active"`
		BranchFilter string            `json:"branch_filter"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	if in.Config["url"] == "" || in.Config["content_type"] == "" {
		return errorResp(http.StatusUnprocessableEntity, "Missing config option: url or content_type")
	}
	if len(in.Events) == 0 {
		in.Events = []string{"push"}
	}
	h := &Hook{ID: c.s.st.id(), Type: in.Type, Config: in.Config, Events: in.Events, Active: in.Active,
		BranchFilter: in.BranchFilter}
	c.repo.hooks = append(c.repo.hooks, h)
	return ok(http.StatusCreated, c.s.hookObj(h, c.s.opts.Now()))
}

func getJobLog(c *call) response {
	log, found := c.repo.jobLogs[int64(c.intParam("job_id"))]
	if !found {
		return errorResp(http.StatusNotFound, "")
	}
	return response{status: http.StatusOK, raw: []byte(log), ctype: "text/plain; charset=utf-8"}
}
