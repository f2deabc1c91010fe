-- The repositories the bot has worked on (a run opened, or a push it
-- refreshed summaries for), per installation: the nightly summary refresh
-- covers them. River deletes its completed jobs after a day, so they cannot
-- serve as this list. An uninstall deletes the installation's rows.
CREATE TABLE known_repos (
	installation_id INTEGER NOT NULL,
	owner           TEXT NOT NULL,
	repo            TEXT NOT NULL,
	first_seen      INTEGER NOT NULL,
	last_seen       INTEGER NOT NULL,
	PRIMARY KEY (installation_id, owner, repo)
);

-- Every repository that has runs is known from its first run on.
INSERT INTO known_repos (installation_id, owner, repo, first_seen, last_seen)
	SELECT installation_id, owner, repo, MIN(created_at), MAX(updated_at) FROM runs
	GROUP BY installation_id, owner, repo;
