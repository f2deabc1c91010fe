package server

import (
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/issuesmith/issuesmith/workflow/ghport"
)

// forks is the engine's Forks with ISSUESMITH_PUSH=fork (the forks owned
// by ISSUESMITH_FORK_OWNER), nil when the bot pushes to the repository.
func forks(cfg *config.Server, app *ghapp.App) workflow.Forks {
	if !cfg.ForkPush() {
		return nil
	}
	return ghport.Forks{F: &ghapp.Forks{App: app, Account: cfg.ForkOwner}}
}
