package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// installation handles the App being installed, uninstalled, suspended or
// unsuspended; the workflow warms or drops the repositories' caches.
func (h *Handler) installation(payload any) verdict {
	e, ok := as[github.InstallationEvent](payload)
	if !ok {
		return malformed("not a InstallationEvent payload")
	}
	switch e.GetAction() {
	case "created", "deleted", "suspend", "unsuspend":
	default:
		return ignore("installation action %q", e.GetAction())
	}
	ev := workflow.Event{Kind: workflow.Installation, Action: e.GetAction(), InstallationID: e.GetInstallation().GetID(),
		Owner: e.GetInstallation().GetAccount().GetLogin(), Sender: e.GetSender().GetLogin()}
	for _, r := range e.Repositories {
		ev.Repos = append(ev.Repos, r.GetFullName())
	}
	return verdict{ev: ev}
}
