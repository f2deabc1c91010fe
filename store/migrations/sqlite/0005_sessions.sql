-- Sessions: what the bot did in a run, as an append-only log of events
-- (model calls, tool calls, edits, checks, commits, GitHub writes).
CREATE TABLE sessions (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	installation_id   INTEGER NOT NULL,
	run_id            INTEGER NOT NULL DEFAULT 0,
	owner             TEXT NOT NULL,
	repo              TEXT NOT NULL,
	issue             INTEGER NOT NULL,
	requester         TEXT NOT NULL DEFAULT '',
	state             TEXT NOT NULL,
	stage             TEXT NOT NULL DEFAULT '',
	model_calls       INTEGER NOT NULL DEFAULT 0,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	cost              REAL NOT NULL DEFAULT 0,
	bytes             INTEGER NOT NULL DEFAULT 0,
	cut               INTEGER NOT NULL DEFAULT 0,
	started_at        INTEGER NOT NULL,
	updated_at        INTEGER NOT NULL,
	ended_at          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_started ON sessions (started_at);
CREATE INDEX sessions_repo ON sessions (owner, repo, started_at);
CREATE INDEX sessions_run ON sessions (run_id);
CREATE INDEX sessions_installation ON sessions (installation_id);

-- One event of a session; seq orders them. body is the event's JSON.
CREATE TABLE session_events (
	session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	stage       TEXT NOT NULL,
	step        TEXT NOT NULL,
	attempt     INTEGER NOT NULL DEFAULT 1,
	kind        TEXT NOT NULL,
	at_ms       INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL DEFAULT 0,
	body        TEXT NOT NULL,
	shrunk      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, seq)
);

-- Steps of a session: a step that finished drops the events of a re-run.
CREATE TABLE session_steps (
	session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	step       TEXT NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	done_at    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, step)
);

-- System prompts and tool schemas, stored once per session by hash.
CREATE TABLE session_blobs (
	session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	hash       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	body       TEXT NOT NULL,
	PRIMARY KEY (session_id, hash)
);
