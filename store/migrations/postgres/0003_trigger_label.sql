-- The label that started a run, so removing that label (whatever the
-- repository calls it) cancels it and the run resets that label at the end.
ALTER TABLE runs ADD COLUMN trigger_label TEXT NOT NULL DEFAULT '';
