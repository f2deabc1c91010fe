package workflow

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/store"
)

// Uninstalled ends the open runs of an installation that was deleted (repos
// empty: all of them) or that lost the listed "owner/name" repositories, as
// cancelled in the store only: GitHub no longer lets the App in, so nothing
// is posted or labelled. Their queued jobs then do nothing, and a later
// reinstall starts clean. The repositories are no longer known (the
// nightly refresh skips them), and a deleted installation's sessions are
// deleted with it. It returns ErrIgnored when no run was open and nothing
// was kept.
func (e *Engine) Uninstalled(ctx context.Context, installationID int64, repos []string) error {
	why := "the App was uninstalled"
	if len(repos) > 0 {
		why = "the repository was removed from the App's installation"
	}
	ended, err := e.d.Store.CancelRunsOf(ctx, installationID, repos, why)
	for _, r := range ended {
		e.log.Info("run cancelled: no access to the repository any more", "run", r.ID, "issue", r.IssueKey.String(), "why", why)
		if len(repos) > 0 {
			e.endSession(ctx, r.ID, store.StateCancelled)
		}
	}
	if err != nil {
		return fmt.Errorf("cancel runs of installation %d: %w", installationID, err)
	}
	// The bot no longer works there: the nightly refresh leaves them be.
	forgot, err := e.d.Store.ForgetRepos(ctx, installationID, repos)
	if err != nil {
		return fmt.Errorf("forget the repositories of installation %d: %w", installationID, err)
	}
	var deleted int64
	if len(repos) == 0 {
		// The installation's data goes with it: what the bot did there.
		deleted, err = e.d.Store.DeleteSessionsOf(ctx, installationID)
		if err != nil {
			return fmt.Errorf("delete the sessions of installation %d: %w", installationID, err)
		}
		if deleted > 0 {
			e.log.Info("sessions deleted: the App was uninstalled", "installation", installationID, "sessions", deleted)
		}
	}
	if len(ended) == 0 && deleted == 0 && forgot == 0 {
		return ErrIgnored
	}
	return nil
}
