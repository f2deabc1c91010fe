// Package procenv owns the one rule for the environment of every subprocess
// the bot starts (git, universal-ctags, the go tool, repository check
// commands): the bot's own settings (ISSUESMITH_*: the App's private key, the
// webhook secret, the model's API key, the database URL) never reach a child.
// Subprocesses work on untrusted checkouts and may run repository code.
//
// It imports nothing of the project and never starts a process itself.
package procenv
