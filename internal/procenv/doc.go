// Package procenv owns the rules for the environment of every subprocess
// the bot starts. Host-side helpers (git, universal-ctags, the go tool's
// downloads) get Scrubbed/Filter: the process's environment less the bot's
// own settings (ISSUESMITH_*: the App's private key, the webhook secret,
// the model's API key, the database URL) and the OpenTelemetry SDK's
// (OTEL_*: a tracing backend's address and key). Sandboxed commands
// (internal/sandbox: the App's checks, bot replay, the language servers,
// bot try) get Sandbox: an allow-list (the locale, the terminal, the C
// toolchain's and the go tool's harmless settings), so nothing else the
// caller's environment holds — GITHUB_TOKEN, cloud and model API keys,
// DATABASE_URL, any *_TOKEN, *_KEY, *_SECRET or *_PASSWORD — reaches
// repository or model-written code.
//
// It imports nothing of the project and never starts a process itself.
package procenv
