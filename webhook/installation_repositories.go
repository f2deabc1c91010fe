package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// installationRepositories handles repositories added to or removed from an
// installation.
func (h *Handler) installationRepositories(payload any) verdict {
	e, ok := as[github.InstallationRepositoriesEvent](payload)
	if !ok {
		return malformed("not a InstallationRepositoriesEvent payload")
	}
	if a := e.GetAction(); a != "added" && a != "removed" {
		return ignore("installation_repositories action %q", a)
	}
	ev := workflow.Event{Kind: workflow.Repositories, Action: e.GetAction(), InstallationID: e.GetInstallation().GetID(),
		Owner: e.GetInstallation().GetAccount().GetLogin(), Sender: e.GetSender().GetLogin()}
	for _, r := range e.RepositoriesAdded {
		ev.Repos = append(ev.Repos, r.GetFullName())
	}
	for _, r := range e.RepositoriesRemoved {
		ev.Removed = append(ev.Removed, r.GetFullName())
	}
	return verdict{ev: ev}
}
