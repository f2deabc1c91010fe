-- The usage ledger: one row per model call, written when the call is
-- admitted (pending, holding the call's worst case) and charged with what
-- it used. Spending limits sum it by run, repository and installation.
CREATE TABLE usage_ledger (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	at_ms             INTEGER NOT NULL,
	installation_id   INTEGER NOT NULL,
	owner             TEXT NOT NULL,
	repo              TEXT NOT NULL,
	issue             INTEGER NOT NULL DEFAULT 0,
	run_id            INTEGER NOT NULL DEFAULT 0,
	stage             TEXT NOT NULL DEFAULT '',
	role              TEXT NOT NULL,
	model             TEXT NOT NULL,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	cost              REAL NOT NULL DEFAULT 0,
	estimated         INTEGER NOT NULL DEFAULT 0,
	pending           INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX usage_ledger_installation ON usage_ledger (installation_id, at_ms);
CREATE INDEX usage_ledger_repo ON usage_ledger (owner, repo, at_ms);
CREATE INDEX usage_ledger_run ON usage_ledger (run_id);
CREATE INDEX usage_ledger_at ON usage_ledger (at_ms);

-- The loop guard: when work of a kind (run, revise, ci) started for an
-- issue, so an issue gets at most so many of each per hour.
CREATE TABLE loop_triggers (
	owner TEXT NOT NULL,
	repo  TEXT NOT NULL,
	issue INTEGER NOT NULL,
	kind  TEXT NOT NULL,
	at_ms INTEGER NOT NULL
);
CREATE INDEX loop_triggers_issue ON loop_triggers (owner, repo, issue, kind, at_ms);
