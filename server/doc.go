// Package server is the wired GitHub App that `bot serve` runs: New builds
// and checks every part from a config.Server in the order the data flows —
// database (migrated), the App's key checked with GitHub (GET /app), each
// role's model looked up on the model server's GET /models (checks.go: a
// warning, not a stop), git cache, agents, workflow engine, webhook handler
// behind its in-flight limiter, metrics, the sessions page — and Serve
// answers /webhook, /healthz, /readyz, /metrics, /sessions and /gitea-sessions (routes.go)
// until its context ends, then drains running steps. Serve also probes each
// role's model with a call in the background (probe.go): what the model
// said is logged and shown on /readyz, a warning, never a stop.
//
// Contracts: nothing runs before Serve; a start-up call that hangs fails
// within the start-up bound naming the host; a database that does not
// answer does not stop the start (database.go): Serve answers at once,
// /readyz says it waits for the database, deliveries are held, and the
// database is opened, migrated and the engine started once it answers (a
// DSN that does not parse stops the start); /readyz is 200 only while jobs
// are worked and the database answers, and lists the start-up warnings;
// a request's headers and body must arrive within the read timeout (30 s),
// so trickled bodies cannot hold connections or in-flight bytes;
// the coder's commands run in the sandbox with the App's key, the model's
// API key file, the settings file (ISSUESMITH_CONFIG_FILE or `bot serve
// --config`) and a SQLite database's files masked (SandboxPolicy; cmd/bot's
// TestServeConfigFileMaskedFromTheCoder reads them through serve's path).
// Deliveries the database cannot record are held in the spool (held.go,
// HOLD_DIR) and drained into it every second while any wait; /readyz says
// how many. cmd/bot holds only the command line; tests and
// `bot try` build the same Server with Tuning.
package server
