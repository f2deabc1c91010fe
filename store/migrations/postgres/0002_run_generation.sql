-- A run's request counter: each command or event that steers the run
-- starts a new generation, so its jobs are not merged with a job of an
-- earlier request that is still finishing.
ALTER TABLE runs ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
