package ghport

import (
	"github.com/google/go-github/v60/github"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/workflow"
)

// The go-github values as the workflow's: a field GitHub left out (or a
// nil value) is the zero value, as go-github's getters read it.

func comment(c *github.IssueComment) *workflow.Comment {
	return &workflow.Comment{ID: c.GetID(), Body: c.GetBody(), HTMLURL: c.GetHTMLURL()}
}

func pullRequest(p *github.PullRequest) *workflow.PullRequest {
	return &workflow.PullRequest{Number: p.GetNumber(), State: p.GetState(), Merged: p.GetMerged() || p.MergedAt != nil,
		Draft: p.GetDraft(), HTMLURL: p.GetHTMLURL(), HeadSHA: p.GetHead().GetSHA(), BaseSHA: p.GetBase().GetSHA()}
}

func newPR(p workflow.NewPR) ghapp.NewPR {
	return ghapp.NewPR{Title: p.Title, Head: p.Head, Base: p.Base, Body: p.Body, Draft: p.Draft}
}

func diffComment(c *github.PullRequestComment) workflow.DiffComment {
	return workflow.DiffComment{Path: c.GetPath(), StartLine: c.GetStartLine(), Line: c.GetLine(),
		OriginalLine: c.GetOriginalLine(), DiffHunk: c.GetDiffHunk(), Body: c.GetBody(), HTMLURL: c.GetHTMLURL(),
		Author: c.GetUser().GetLogin(), AuthorIsBot: c.GetUser().GetType() == "Bot"}
}

func repository(r *github.Repository) *workflow.Repository {
	return &workflow.Repository{DefaultBranch: r.GetDefaultBranch(), CloneURL: r.GetCloneURL()}
}

func issue(is *github.Issue) *workflow.Issue {
	out := &workflow.Issue{Title: is.GetTitle(), Body: is.GetBody()}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

// checkRun is a check run as cievidence judges it; an Actions job is a
// check run made by the github-actions App (its id is the job's).
func checkRun(r *github.CheckRun) workflow.CheckRun {
	return workflow.CheckRun{ID: r.GetID(), Name: r.GetName(), Status: r.GetStatus(),
		Conclusion: r.GetConclusion(), Title: r.GetOutput().GetTitle(), Summary: r.GetOutput().GetSummary(),
		Text: r.GetOutput().GetText(), Actions: r.GetApp().GetSlug() == "github-actions",
		AnnotationCount: r.GetOutput().GetAnnotationsCount()}
}

func annotation(a *github.CheckRunAnnotation) workflow.Annotation {
	return workflow.Annotation{Path: a.GetPath(), StartLine: a.GetStartLine(),
		Level: a.GetAnnotationLevel(), Title: a.GetTitle(), Message: a.GetMessage()}
}

func fork(f *ghapp.Fork) *workflow.Fork {
	return &workflow.Fork{Owner: f.Owner, Repo: f.Repo, CloneURL: f.CloneURL, InstallationID: f.InstallationID}
}
