// Package procenv owns the one rule for the environment of every subprocess
// the bot starts (git, universal-ctags, the go tool, repository check
// commands): the bot's own settings (ISSUESMITH_*: the App's private key, the
// webhook secret, the model's API key, the database URL) and the
// OpenTelemetry SDK's (OTEL_*: a tracing backend's address and key) never
// reach a child.
// Subprocesses work on untrusted checkouts and may run repository code.
//
// It imports nothing of the project and never starts a process itself.
package procenv
