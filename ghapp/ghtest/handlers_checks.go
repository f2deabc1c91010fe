package ghtest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CheckRun is a check run on a commit as the fake holds it: one job of a
// GitHub Actions workflow (Log set) or another App's check.
type CheckRun struct {
	// ID is assigned by AddCheckRun; for an Actions check it is also the
	// job id, as on GitHub.
	ID      int64
	HeadSHA string
	Name    string
	// Status is "queued", "in_progress" or "completed" (the default).
	Status     string
	Conclusion string
	// Title, Summary and Text are the check run's output.
	Title, Summary, Text string
	Annotations          []Annotation
	// Log is the Actions job log served behind the logs redirect; a check
	// with a Log belongs to the github-actions App.
	Log string
}

// Annotation is one check run annotation.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	// Level is "notice", "warning" or "failure" (the default).
	Level, Title, Message string
}

// AddCheckRun records a check run on owner/name and returns its id. A
// later run with the same name and head replaces the earlier one in
// "latest" listings, as a re-run does on GitHub.
func (s *Server) AddCheckRun(owner, name string, cr CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(owner, name)
	cr.ID = s.st.id()
	if cr.Status == "" {
		cr.Status = "completed"
	}
	if cr.Status != "completed" {
		cr.Conclusion = ""
	}
	rp.checks = append(rp.checks, &cr)
	return cr.ID
}

// CompleteCheckRun finishes a queued or running check run with conclusion.
func (s *Server) CompleteCheckRun(owner, name string, id int64, conclusion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cr := range s.repo(owner, name).checks {
		if cr.ID == id {
			cr.Status, cr.Conclusion = "completed", conclusion
		}
	}
}

// SetRefResolver tells the fake how to turn a branch into its head commit
// (a test's git server): pull requests then report head.sha and base.sha,
// and check runs can be listed by branch. Without it a pull request's
// commits are all zeros.
func (s *Server) SetRefResolver(fn func(owner, name, ref string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.resolve = fn
}

// sha resolves ref in rp (s.mu held): a full SHA as it is, else through
// the resolver.
func (s *Server) sha(rp *repo, ref string) string {
	if len(ref) == 40 && strings.Trim(ref, "0123456789abcdef") == "" {
		return ref
	}
	if s.st.resolve != nil {
		if h := s.st.resolve(rp.Owner, rp.Name, ref); h != "" {
			return h
		}
	}
	return strings.Repeat("0", 40)
}

func (s *Server) checkRunObj(rp *repo, cr *CheckRun) obj {
	app := obj{"id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg=", "name": "GitHub Actions",
		"owner": userObj("github"), "description": "", "external_url": "https://help.github.com/en/actions",
		"html_url": "https://github.com/apps/github-actions", "created_at": ts(time.Unix(1_550_000_000, 0)),
		"updated_at": ts(time.Unix(1_550_000_000, 0)), "permissions": obj{}, "events": []string{}}
	details := "https://github.com/" + rp.Owner + "/" + rp.Name + "/actions/runs/1/job/" + strconv.FormatInt(cr.ID, 10)
	if cr.Log == "" {
		app = obj{"id": 29, "slug": "other-ci", "node_id": "A_29", "name": "Other CI", "owner": userObj("other-ci"),
			"description": "", "external_url": "https://ci.example.com", "html_url": "https://github.com/apps/other-ci",
			"created_at": ts(time.Unix(1_550_000_000, 0)), "updated_at": ts(time.Unix(1_550_000_000, 0)),
			"permissions": obj{}, "events": []string{}}
		details = "https://ci.example.com/builds/" + strconv.FormatInt(cr.ID, 10)
	}
	var conclusion any
	if cr.Status == "completed" {
		conclusion = cr.Conclusion
	}
	url := s.apiURL("/repos/%s/%s/check-runs/%d", rp.Owner, rp.Name, cr.ID)
	return obj{"id": cr.ID, "node_id": "CR_" + strconv.FormatInt(cr.ID, 10), "head_sha": cr.HeadSHA, "name": cr.Name,
		"external_id": "", "url": url, "html_url": details, "details_url": details, "status": cr.Status,
		"conclusion": conclusion, "started_at": ts(time.Now()), "completed_at": nil, "app": app,
		"check_suite": obj{"id": 1}, "pull_requests": []obj{},
		"output": obj{"title": cr.Title, "summary": cr.Summary, "text": cr.Text,
			"annotations_count": len(cr.Annotations), "annotations_url": url + "/annotations"}}
}

func listCheckRuns(c *call) response {
	rp := c.repoOf()
	sha := c.s.sha(rp, c.param("ref"))
	q := c.r.URL.Query()
	var runs []*CheckRun
	for _, cr := range rp.checks {
		if cr.HeadSHA != sha || q.Get("check_name") != "" && cr.Name != q.Get("check_name") ||
			q.Get("status") != "" && cr.Status != q.Get("status") {
			continue
		}
		if q.Get("filter") != "all" { // latest: a re-run replaces the run of the same name
			runs = slices.DeleteFunc(runs, func(x *CheckRun) bool { return x.Name == cr.Name })
		}
		runs = append(runs, cr)
	}
	page, h := paginate(c, runs)
	out := []obj{}
	for _, cr := range page {
		out = append(out, c.s.checkRunObj(rp, cr))
	}
	r := ok(http.StatusOK, obj{"total_count": len(runs), "check_runs": out})
	if h.Get("Link") != "" {
		r.header = h
	}
	return r
}

func (c *call) checkRun(param string) *CheckRun {
	id, _ := strconv.ParseInt(c.param(param), 10, 64)
	for _, cr := range c.repoOf().checks {
		if cr.ID == id {
			return cr
		}
	}
	return nil
}

func listAnnotations(c *call) response {
	cr := c.checkRun("check_run_id")
	if cr == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var out []obj
	for _, a := range cr.Annotations {
		level := a.Level
		if level == "" {
			level = "failure"
		}
		end := max(a.EndLine, a.StartLine)
		out = append(out, obj{"path": a.Path, "start_line": a.StartLine, "end_line": end, "start_column": nil,
			"end_column": nil, "annotation_level": level, "title": a.Title, "message": a.Message, "raw_details": nil,
			"blob_href": "https://github.com/" + c.param("owner") + "/" + c.param("repo") + "/blob/" + cr.HeadSHA + "/" + a.Path})
	}
	return list(c, out)
}

// blobPrefix is where the fake serves job logs, standing in for the
// storage host GitHub redirects to: no GitHub token may be sent there.
const blobPrefix = "/_blob/job-logs/"

func jobLogs(c *call) response {
	cr := c.checkRun("job_id")
	if cr == nil || cr.Log == "" {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	loc := c.s.srv.URL + blobPrefix + c.param("owner") + "/" + c.param("repo") + "/" + strconv.FormatInt(cr.ID, 10) + "?sig=fake"
	return response{status: http.StatusFound, header: http.Header{"Location": {loc}}}
}

// serveBlob answers a job log download (the redirect's target).
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		s.failf("a job log download carried an Authorization header: the token would leak to the storage host")
		http.Error(w, "no credentials here", http.StatusBadRequest)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, blobPrefix), "/")
	if len(parts) != 3 || r.URL.Query().Get("sig") == "" {
		http.NotFound(w, r)
		return
	}
	id, _ := strconv.ParseInt(parts[2], 10, 64)
	s.mu.Lock()
	var log string
	if rp := s.st.repos[parts[0]+"/"+parts[1]]; rp != nil {
		for _, cr := range rp.checks {
			if cr.ID == id {
				log = cr.Log
			}
		}
	}
	s.mu.Unlock()
	if log == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(log))
}
