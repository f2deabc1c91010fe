package workflow

import (
	"context"
	"fmt"
)

// boundElsewhere refuses (ErrIgnored) an event for a repository the store
// knows under another forge's installation (Deps.ForgeOf): a repository
// named alike on GitHub and on a self-hosted forge is the first forge's,
// and the other forge's deliveries for it never start or steer a run
// there. Events without a repository pass.
func (e *Engine) boundElsewhere(ctx context.Context, ev Event) error {
	if e.d.ForgeOf == nil || ev.Owner == "" || ev.Repo == "" {
		return nil
	}
	ids, err := e.d.Store.RepoInstallations(ctx, ev.Owner, ev.Repo)
	if err != nil {
		return err
	}
	forge := e.d.ForgeOf(ev.InstallationID)
	for _, id := range ids {
		if other := e.d.ForgeOf(id); other != forge {
			return fmt.Errorf("%w: %s/%s is bound to %s, not %s (a repository is served on one forge)",
				ErrIgnored, ev.Owner, ev.Repo, other, forge)
		}
	}
	return nil
}

// botLogins are the logins the bot acts as: the App's and its aliases on
// the other forges.
func (e *Engine) botLogins() []string {
	return append([]string{e.o.BotLogin}, e.o.BotAliases...)
}
