package store

import (
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// QueuedStates are the states of a job that waits or runs: the unique
// states of every issuesmith job kind (River requires available, pending,
// running and scheduled among them; retryable waits too). A job in one of
// them blocks a duplicate; once it completed, was cancelled or discarded,
// the same job may be queued again.
func QueuedStates() []rivertype.JobState {
	return []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled,
	}
}

// UniqueWhileQueued makes a job kind unique by its args (its fields tagged
// river:"unique", or all of them when none is) while a job waits or runs
// (QueuedStates).
func UniqueWhileQueued() river.UniqueOpts {
	return river.UniqueOpts{ByArgs: true, ByState: QueuedStates()}
}

// UniqueUntilDone is UniqueWhileQueued that also counts a completed job:
// the work is done once, for as long as River keeps the completed row
// (a job that was cancelled or discarded may be queued again).
func UniqueUntilDone() river.UniqueOpts {
	return river.UniqueOpts{ByArgs: true, ByState: append(QueuedStates(), rivertype.JobStateCompleted)}
}
