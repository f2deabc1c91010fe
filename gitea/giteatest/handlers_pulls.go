package giteatest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// page slices items by Gitea's page and limit (30 by default, at most 50)
// and sets X-Total-Count, and the Link header when link is true (Gitea
// sends it on some lists and not on others).
func page[T any](c *call, items []T, link bool) ([]T, http.Header) {
	q := c.r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = 30
	}
	limit = min(limit, 50)
	n, _ := strconv.Atoi(q.Get("page"))
	n = max(n, 1)
	start := min((n-1)*limit, len(items))
	end := min(start+limit, len(items))
	h := http.Header{"X-Total-Count": {itoa(len(items))}}
	if link && end < len(items) {
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: c.r.URL.Path, RawPath: c.r.URL.RawPath}
		q.Set("page", itoa(n+1))
		u.RawQuery = q.Encode()
		h.Set("Link", `<`+u.String()+`>; rel="next"`)
	}
	out := items[start:end]
	if out == nil {
		out = []T{}
	}
	return out, h
}

func (c *call) pullOr404() (*issue, response, bool) {
	is := c.repo.issue(c.intParam("index"))
	if is == nil || is.pr == nil {
		return nil, errorResp(http.StatusNotFound, ""), false
	}
	return is, response{}, true
}

func listPulls(c *call) response {
	state := c.r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	var all []obj
	for n := c.repo.nextIndex; n >= 1; n-- { // newest first
		is := c.repo.issue(n)
		if is == nil || is.pr == nil || (state != "all" && is.state != state) {
			continue
		}
		all = append(all, c.s.pullObj(c.repo, is))
	}
	items, h := page(c, all, true)
	r := ok(http.StatusOK, items)
	r.header = h
	return r
}

func createPull(c *call) response {
	var in struct {
		Title, Head, Base, Body string
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	headSHA, found := c.s.branch(c.repo, in.Head)
	baseSHA, baseFound := c.s.branch(c.repo, in.Base)
	if !found || !baseFound {
		return errorResp(http.StatusNotFound, "")
	}
	for _, is := range c.repo.issues {
		if is.pr != nil && is.state == "open" && is.pr.head == in.Head && is.pr.base == in.Base {
			return errorResp(http.StatusConflict, "pull request already exists for these targets")
		}
	}
	is := c.s.addPull(c.repo, Pull{Title: in.Title, Body: in.Body, User: c.user, Head: in.Head, HeadSHA: headSHA,
		Base: in.Base, BaseSHA: baseSHA})
	return ok(http.StatusCreated, c.s.pullObj(c.repo, is))
}

func getPull(c *call) response {
	is, resp, found := c.pullOr404()
	if !found {
		return resp
	}
	return ok(http.StatusOK, c.s.pullObj(c.repo, is))
}

func editPull(c *call) response {
	is, resp, found := c.pullOr404()
	if !found {
		return resp
	}
	if is.user != c.user {
		if resp, allowed := c.requireWrite(); !allowed {
			return resp
		}
	}
	var in struct {
		Title string  `json:"title"`
		Body  *string `json:"body"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	if in.Title != "" {
		is.title = in.Title
	}
	if in.Body != nil {
		is.body = *in.Body
	}
	is.updated = c.s.opts.Now()
	return ok(http.StatusCreated, c.s.pullObj(c.repo, is))
}

func getPullByBranches(c *call) response {
	head := c.param("head")
	if i := strings.IndexByte(head, ':'); i >= 0 {
		head = head[i+1:] // another repository's branch: the fake keeps one repository per name
	}
	for n := c.repo.nextIndex; n >= 1; n-- {
		is := c.repo.issue(n)
		if is != nil && is.pr != nil && is.pr.base == c.param("base") && is.pr.head == head {
			return ok(http.StatusOK, c.s.pullObj(c.repo, is))
		}
	}
	return errorResp(http.StatusNotFound, "")
}

func requestReviewers(c *call) response {
	is, resp, found := c.pullOr404()
	if !found {
		return resp
	}
	var in struct {
		Reviewers []string `json:"reviewers"`
	}
	if !c.decode(&in) {
		return errorResp(http.StatusUnprocessableEntity, "bad body")
	}
	out := []obj{}
	for _, u := range in.Reviewers {
		if c.s.st.users[lower(u)] == nil {
			return errorResp(http.StatusUnprocessableEntity, "user does not exist [uid: 0, name: "+u+"]")
		}
		is.pr.requested = append(is.pr.requested, u)
		rv := &review{id: c.s.st.id(), user: u, state: "REQUEST_REVIEW", submitted: c.s.opts.Now()}
		is.pr.reviews = append(is.pr.reviews, rv)
		out = append(out, c.s.reviewObj(c.repo, is, rv))
	}
	return ok(http.StatusCreated, out)
}

func listReviews(c *call) response {
	is, resp, found := c.pullOr404()
	if !found {
		return resp
	}
	var all []obj
	for _, rv := range is.pr.reviews {
		all = append(all, c.s.reviewObj(c.repo, is, rv))
	}
	items, h := page(c, all, false) // Gitea: X-Total-Count, no Link
	r := ok(http.StatusOK, items)
	r.header = h
	return r
}

func listReviewComments(c *call) response {
	is, resp, found := c.pullOr404()
	if !found {
		return resp
	}
	for _, rv := range is.pr.reviews {
		if rv.id != int64(c.intParam("id")) {
			continue
		}
		out := []obj{}
		for _, rc := range rv.comments {
			out = append(out, c.s.reviewCommentObj(c.repo, is, rv, rc))
		}
		return ok(http.StatusOK, out)
	}
	return errorResp(http.StatusNotFound, "")
}
