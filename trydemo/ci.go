package trydemo

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// ciCheck is the name of the repository's CI job.
const ciCheck = "test (go 1.22)"

// ci plays the repository's CI on the pull request, as GitHub Actions
// would report it: the job fails on the bot's commit (ciFailure) and
// GitHub delivers check_suite.completed; the bot's fix round pushes a
// commit, the job passes on it and check_run.completed follows. It
// returns the pull request as it then is (ready for review).
func (d *demo) ci(ctx context.Context, pr ghtest.PullRequest) (ghtest.PullRequest, error) {
	repo := owner + "/" + name
	head, base := d.git.Head(d.s, repo, pr.Head), d.git.Head(d.s, repo, pr.Base)
	d.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: base, Name: ciCheck, Conclusion: "success", Log: "ok\n"})
	d.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: head, Name: ciCheck, Conclusion: "failure",
		Title: "go test failed", Log: ciFailure})
	if err := d.deliver("check_suite", d.ciFinished("check_suite.completed.json", "check_suite", head, pr, "failure")); err != nil {
		return pr, err
	}
	d.step(fmt.Sprintf("CI (%s) failed on %s: GitHub sent check_suite completed", ciCheck, head[:7]))
	if err := d.wait(ctx, "the CI fix round", func() bool { return strings.Contains(d.ciComment(pr.Number), "→ pushed") }); err != nil {
		return pr, err
	}
	fixed := d.git.Head(d.s, repo, pr.Head)
	d.step(fmt.Sprintf("the bot read the job's log and pushed %s (Fix CI: %s)", fixed[:7], ciCheck))
	d.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: fixed, Name: ciCheck, Conclusion: "success", Log: "ok\n"})
	if err := d.deliver("check_run", d.ciFinished("check_run.completed.json", "check_run", fixed, pr, "success")); err != nil {
		return pr, err
	}
	if err := d.wait(ctx, "CI to pass", func() bool { return strings.Contains(d.ciComment(pr.Number), "CI passed") }); err != nil {
		return pr, err
	}
	pr = d.gh.PullRequests(owner, name)[0]
	d.step(fmt.Sprintf("CI passed on %s; the bot marked pull request #%d ready for review", fixed[:7], pr.Number))
	return pr, nil
}

// ciFinished is GitHub's completed check_suite or check_run delivery for
// sha on the pull request.
func (d *demo) ciFinished(file, key, sha string, pr ghtest.PullRequest, conclusion string) []byte {
	return d.example(file, func(p map[string]any) {
		c := obj(p, key)
		c["head_sha"], c["conclusion"] = sha, conclusion
		if key == "check_suite" {
			c["head_branch"] = pr.Head
		} else {
			c["name"] = ciCheck
		}
		prs := c["pull_requests"].([]any)
		first := prs[0].(map[string]any)
		first["number"] = pr.Number
		obj(first, "head")["ref"], obj(first, "head")["sha"] = pr.Head, sha
		obj(first, "base")["ref"] = pr.Base
	})
}

// ciComment is the bot's CI comment on the pull request ("" before it exists).
func (d *demo) ciComment(pr int) string {
	for _, c := range d.gh.Comments(owner, name, pr) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && m.Kind == "ci" {
			return c.Body
		}
	}
	return ""
}
