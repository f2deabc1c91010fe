package webhook

import (
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// base fills the fields every event carries.
func base(kind workflow.EventKind, action string, inst *github.Installation, repo *github.Repository, sender *github.User) workflow.Event {
	return workflow.Event{
		Kind: kind, Action: action, InstallationID: inst.GetID(),
		Owner: repo.GetOwner().GetLogin(), Repo: repo.GetName(), Sender: sender.GetLogin(),
	}
}

// isBot reports whether u is a bot account (the App itself included) or
// one of the accounts the server lists as bots (Options.Bots).
func (h *Handler) isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]") ||
		slices.ContainsFunc(h.opts.Bots, func(b string) bool { return strings.EqualFold(b, u.GetLogin()) })
}

// isSelf reports whether login is this App's bot.
func (h *Handler) isSelf(login string) bool { return strings.EqualFold(login, h.opts.BotLogin) }

// mentions reports whether body mentions the bot (workflow.Mentions).
func (h *Handler) mentions(body string) bool { return workflow.Mentions(body, h.opts.BotLogin) }
