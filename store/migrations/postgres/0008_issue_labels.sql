-- The labels an issue had when the bot last heard of them, for forges whose
-- label webhook says only the labels an issue has now (Gitea's
-- label_updated): the next delivery's set is compared with this one to know
-- which label was added or removed.
CREATE TABLE issue_labels (
	owner      TEXT NOT NULL,
	repo       TEXT NOT NULL,
	issue      INTEGER NOT NULL,
	labels     TEXT NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (owner, repo, issue)
);
