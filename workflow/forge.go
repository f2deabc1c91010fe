package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// prsAt answers, for a CI event that names a commit but neither a pull
// request nor a branch (Gitea's commit status), which of the bot's open
// pull requests in the repository have that commit as their head, asking
// the forge about the newest few the store knows.
func (e *Engine) prsAt(ctx context.Context, ev Event) ([]int, error) {
	numbers, err := e.d.Store.PRNumbers(ctx, ev.Owner, ev.Repo, 20)
	if err != nil || len(numbers) == 0 {
		return nil, err
	}
	gh, err := e.d.GitHub.Client(ctx, ev.InstallationID)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range numbers {
		pr, err := gh.GetPR(ctx, ev.Owner, ev.Repo, n)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("which pull request has %s as its head: %w", ev.SHA, err)
		}
		if pr.State == "open" && pr.HeadSHA == ev.SHA {
			out = append(out, n)
		}
	}
	return out, nil
}

// forgeName is how a session names the forge of installation id in the
// writes it records: "" for GitHub (the record's default), else ForgeOf's
// name capitalised ("Gitea").
func (e *Engine) forgeName(id int64) string {
	if e.d.ForgeOf == nil {
		return ""
	}
	name := e.d.ForgeOf(id)
	if name == "" || name == "github" {
		return ""
	}
	return strings.ToUpper(name[:1]) + name[1:]
}
