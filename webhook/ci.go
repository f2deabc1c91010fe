package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// checkRun, checkSuite and workflowRun handle the repository's CI
// finishing on a commit: completed check runs, check suites and Actions
// workflow runs become workflow.CIFinished for the pull requests GitHub
// names (the workflow keeps those that are the bot's and waits until every
// check of the commit is done). They need no permission check: GitHub
// sends them, whoever triggered the CI.
func (h *Handler) checkRun(payload any) verdict {
	e, ok := as[github.CheckRunEvent](payload)
	if !ok || e.GetCheckRun() == nil {
		return malformed("check_run event without a check run")
	}
	cr := e.GetCheckRun()
	return h.ciFinished(e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender(), cr.GetHeadSHA(),
		cr.GetCheckSuite().GetHeadBranch(), cr.PullRequests)
}

func (h *Handler) checkSuite(payload any) verdict {
	e, ok := as[github.CheckSuiteEvent](payload)
	if !ok || e.GetCheckSuite() == nil {
		return malformed("check_suite event without a check suite")
	}
	cs := e.GetCheckSuite()
	return h.ciFinished(e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender(), cs.GetHeadSHA(),
		cs.GetHeadBranch(), cs.PullRequests)
}

func (h *Handler) workflowRun(payload any) verdict {
	e, ok := as[github.WorkflowRunEvent](payload)
	if !ok || e.GetWorkflowRun() == nil {
		return malformed("workflow_run event without a workflow run")
	}
	wr := e.GetWorkflowRun()
	return h.ciFinished(e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender(), wr.GetHeadSHA(),
		wr.GetHeadBranch(), wr.PullRequests)
}

func (h *Handler) ciFinished(action string, inst *github.Installation, repo *github.Repository, sender *github.User,
	sha, branch string, prs []*github.PullRequest) verdict {
	if action != "completed" {
		return ignore("CI action %q", action)
	}
	if len(sha) != 40 {
		return malformed("CI event without a head commit")
	}
	ev := base(workflow.CIFinished, action, inst, repo, sender)
	ev.SHA, ev.Head, ev.IsPR = sha, branch, true
	for _, pr := range prs {
		// Only pull requests into this repository (a fork's CI lists the
		// fork's own).
		if pr.GetBase().GetRepo().GetID() == repo.GetID() && pr.GetNumber() > 0 {
			ev.PRs = append(ev.PRs, pr.GetNumber())
		}
	}
	if len(ev.PRs) == 0 {
		// GitHub names no pull request when the head branch is a fork's
		// (push: fork); an Actions workflow run still names the branch,
		// which the workflow maps to its run.
		if _, ok := workflow.RunBranchIssue(branch); ok {
			return verdict{ev: ev}
		}
		return ignore("CI finished on %s, which no pull request of this repository names", short(sha))
	}
	ev.Number = ev.PRs[0]
	return verdict{ev: ev}
}

func short(sha string) string { return sha[:min(len(sha), 12)] }
