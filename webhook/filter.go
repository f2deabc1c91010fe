package webhook

import (
	"strings"
	"unicode"

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

// isBot reports whether u is a bot account (the App itself included).
func isBot(u *github.User) bool {
	return u.GetType() == "Bot" || strings.HasSuffix(u.GetLogin(), "[bot]")
}

// isSelf reports whether login is this App's bot.
func (h *Handler) isSelf(login string) bool { return strings.EqualFold(login, h.opts.BotLogin) }

// mentions reports whether body mentions the bot as @slug (a whole word).
func (h *Handler) mentions(body string) bool {
	lower, m := strings.ToLower(body), strings.ToLower(h.mention)
	for i := 0; ; {
		j := strings.Index(lower[i:], m)
		if j < 0 {
			return false
		}
		end := i + j + len(m)
		before := i + j
		okBefore := before == 0 || !isWordRune(rune(lower[before-1]))
		okAfter := end == len(lower) || !isWordRune(rune(lower[end]))
		if okBefore && okAfter {
			return true
		}
		i = end
	}
}

func isWordRune(r rune) bool {
	return r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
