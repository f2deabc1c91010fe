package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// push handles a push to the default branch: the workflow refreshes the
// repository's summaries. Pushes by bots count too (a merge bot moves the
// default branch as much as a person does); other branches, tags and
// deletions are ignored.
func (h *Handler) push(payload any) verdict {
	e, ok := as[github.PushEvent](payload)
	if !ok {
		return malformed("not a PushEvent payload")
	}
	if e.GetRepo() == nil {
		return malformed("push event without a repository")
	}
	repo := e.GetRepo()
	if e.GetDeleted() {
		return ignore("branch deleted")
	}
	if e.GetRef() != "refs/heads/"+repo.GetDefaultBranch() {
		return ignore("push to %s, not the default branch", e.GetRef())
	}
	ev := workflow.Event{Kind: workflow.Pushed, InstallationID: e.GetInstallation().GetID(), Owner: repo.GetOwner().GetLogin(),
		Repo: repo.GetName(), Sender: e.GetSender().GetLogin(), Ref: e.GetRef(), Before: e.GetBefore(), After: e.GetAfter()}
	if ev.Owner == "" {
		ev.Owner = repo.GetOwner().GetName()
	}
	return verdict{ev: ev}
}
