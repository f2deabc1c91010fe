-- A run's save counter: every whole-row save is a compare-and-swap on it,
-- so a writer holding an older copy gets an error instead of overwriting.
ALTER TABLE runs ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
