package workflow

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// OrphanArgs is the periodic check for active runs that no job will work
// (belt and braces: every transition queues its next job in the same
// transaction, so none should exist). Each is resumed at its stage, or,
// when its stage is not one a job can resume, ended with a comment that
// says why.
type OrphanArgs struct{}

// Kind names the job kind in River.
func (OrphanArgs) Kind() string { return "issuesmith_orphans" }

// InsertOpts: one check at a time.
func (OrphanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: store.UniqueWhileQueued()}
}

// orphanIdle is how long an active run must have gone unsaved before the
// check looks at it: longer than any transaction, shorter than anyone's
// patience.
const orphanIdle = 2 * time.Minute

// OrphanInterval is how often the check runs (and once at start).
const OrphanInterval = 5 * time.Minute

type orphanWorker struct {
	river.WorkerDefaults[OrphanArgs]
	e *Engine
}

// Timeout bounds a check.
func (w *orphanWorker) Timeout(*river.Job[OrphanArgs]) time.Duration { return 5 * time.Minute }

// Work resumes or ends every orphaned run.
func (w *orphanWorker) Work(ctx context.Context, _ *river.Job[OrphanArgs]) error {
	return w.e.ResumeOrphans(ctx, orphanIdle)
}

// ResumeOrphans finds the active runs idle for at least idle that no stage
// job will work and queues the stage each stands at (a run past its spec
// resumes at plan, and so on; the checkpoints skip what was done), or ends
// the run with a comment when its stage is not one a job resumes.
func (e *Engine) ResumeOrphans(ctx context.Context, idle time.Duration) error {
	runs, err := e.d.Store.ActiveRunsWithoutJob(ctx, StageArgs{}.Kind(), idle)
	if err != nil {
		return err
	}
	for _, row := range runs {
		r := runOf(row)
		stage, ok := lifecycle.Resume(r.Stage)
		if !ok {
			e.log.Error("an active run had no job and cannot be resumed at its stage; ending it", "run", r.ID, "issue", r.IssueKey.String(), "stage", r.Stage)
			if err := e.fail(ctx, r, r.Stage, permanent(errOrphan(r.Stage)), nil); err != nil {
				return err
			}
			continue
		}
		e.log.Warn("an active run had no job; resuming it", "run", r.ID, "issue", r.IssueKey.String(), "stage", stage)
		err := e.inTx(ctx, func(tx *store.Tx) error {
			fresh, err := getRun(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			if !fresh.Open() {
				return store.ErrClosed
			}
			return e.applyTx(ctx, tx, fresh, transition{o: lifecycle.StartAt(stage)}, 0)
		})
		if err != nil && !errors.Is(err, store.ErrClosed) {
			return err
		}
	}
	return nil
}

// errOrphan is the reason an orphaned run that cannot be resumed ends with.
type errOrphan string

func (s errOrphan) Error() string {
	return "the run stopped at the " + string(s) + " stage with no job left to continue it (an interrupted restart). Comment `/retry` to go on"
}
