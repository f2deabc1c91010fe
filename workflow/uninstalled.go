package workflow

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// Uninstalled ends the open runs of an installation that was deleted (repos
// empty: all of them) or that lost the listed "owner/name" repositories, as
// cancelled in the store only: GitHub no longer lets the App in, so nothing
// is posted or labelled. Their queued jobs then do nothing, and a later
// reinstall starts clean. The repositories are no longer known (the
// nightly refresh skips them), and a deleted installation's sessions are
// deleted with it — all in one transaction (with the completion of the
// job that carried the event). It returns ErrIgnored when no run was open
// and nothing was kept.
func (e *Engine) Uninstalled(ctx context.Context, installationID int64, repos []string) error {
	return e.uninstalled(ctx, nil, installationID, repos)
}

func (e *Engine) uninstalled(ctx context.Context, c *completion, installationID int64, repos []string) error {
	why := "the App was uninstalled"
	if len(repos) > 0 {
		why = "the repository was removed from the App's installation"
	}
	var ended []*Run
	var forgot, deleted int64
	err := e.commit(ctx, c, func(tx *store.Tx) error {
		ended, forgot, deleted = nil, 0, 0
		open, err := openRunsOf(ctx, tx, installationID, repos)
		if err != nil {
			return err
		}
		for _, r := range open {
			t := transition{o: lifecycle.EndAs(lifecycle.Cancelled, why, ""), silent: true}
			if err := e.applyTx(ctx, tx, r, t, 0); err != nil {
				return fmt.Errorf("cancel run %d of installation %d: %w", r.ID, installationID, err)
			}
			ended = append(ended, r)
		}
		// The bot no longer works there: the nightly refresh leaves them be.
		if forgot, err = tx.ForgetRepos(ctx, installationID, repos); err != nil {
			return err
		}
		if len(repos) == 0 {
			// The installation's data goes with it: what the bot did there.
			if deleted, err = tx.DeleteSessionsOf(ctx, installationID); err != nil {
				return fmt.Errorf("delete the sessions of installation %d: %w", installationID, err)
			}
		}
		if len(ended) == 0 && deleted == 0 && forgot == 0 {
			return ErrIgnored
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range ended {
		e.log.Info("run cancelled: no access to the repository any more", "run", r.ID, "issue", r.IssueKey.String(), "why", why)
		if len(repos) > 0 {
			e.endSession(ctx, r.ID, lifecycle.Cancelled)
		}
	}
	if deleted > 0 {
		e.log.Info("sessions deleted: the App was uninstalled", "installation", installationID, "sessions", deleted)
	}
	return nil
}
