-- Deliveries seen on /webhook, so a repeated X-GitHub-Delivery is ignored.
CREATE TABLE deliveries (
	id          TEXT PRIMARY KEY,
	event       TEXT NOT NULL,
	received_at INTEGER NOT NULL
);

-- One issue's journey from label to pull request.
CREATE TABLE runs (
	id                  INTEGER PRIMARY KEY AUTOINCREMENT,
	installation_id     INTEGER NOT NULL,
	owner               TEXT NOT NULL,
	repo                TEXT NOT NULL,
	issue               INTEGER NOT NULL,
	requester           TEXT NOT NULL DEFAULT '',
	state               TEXT NOT NULL,
	stage               TEXT NOT NULL DEFAULT '',
	step                TEXT NOT NULL DEFAULT '',
	reason              TEXT NOT NULL DEFAULT '',
	progress_comment_id INTEGER NOT NULL DEFAULT 0,
	spec_comment_id     INTEGER NOT NULL DEFAULT 0,
	plan_comment_id     INTEGER NOT NULL DEFAULT 0,
	spec_body           TEXT NOT NULL DEFAULT '',
	plan_body           TEXT NOT NULL DEFAULT '',
	branch              TEXT NOT NULL DEFAULT '',
	pr_number           INTEGER NOT NULL DEFAULT 0,
	pr_url              TEXT NOT NULL DEFAULT '',
	prompt_tokens       INTEGER NOT NULL DEFAULT 0,
	completion_tokens   INTEGER NOT NULL DEFAULT 0,
	cost                REAL NOT NULL DEFAULT 0,
	created_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL
);
-- At most one open run per issue.
CREATE UNIQUE INDEX runs_open_issue ON runs (owner, repo, issue) WHERE state IN ('active', 'waiting');
CREATE INDEX runs_issue ON runs (owner, repo, issue);

-- Checkpoints: a step that finished records its result once, so a retried
-- or resumed job skips it.
CREATE TABLE run_steps (
	run_id  INTEGER NOT NULL REFERENCES runs (id),
	name    TEXT NOT NULL,
	result  TEXT NOT NULL DEFAULT '',
	done_at INTEGER NOT NULL,
	PRIMARY KEY (run_id, name)
);

-- Per-issue lease: one job works on an issue at a time.
CREATE TABLE issue_leases (
	owner      TEXT NOT NULL,
	repo       TEXT NOT NULL,
	issue      INTEGER NOT NULL,
	holder     TEXT NOT NULL,
	expires_at INTEGER NOT NULL,
	PRIMARY KEY (owner, repo, issue)
);

-- One-line file summaries by git blob hash.
CREATE TABLE file_summaries (
	blob       TEXT PRIMARY KEY,
	summary    TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
