package workflow

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// queueRefresh queues a refresh of a repository. When one is already
// queued it will see the latest default branch, so nothing more is needed;
// when one is running it may have checked out before this change, so a
// follow-up is queued under the other key (unique too: a burst of pushes
// during a refresh queues one follow-up). The follow-up waits for the
// running refresh (refreshRunning) and then refreshes once more.
func (e *Engine) queueRefresh(ctx context.Context, a RefreshArgs) error {
	id, skipped, err := e.queue.Insert(ctx, a, nil)
	if err != nil || !skipped {
		return err
	}
	job, err := e.queue.Job(ctx, id)
	if err != nil {
		return err
	}
	if job.State != rivertype.JobStateRunning {
		return nil
	}
	var running RefreshArgs
	if err := json.Unmarshal(job.EncodedArgs, &running); err != nil {
		return fmt.Errorf("decode refresh job %d: %w", id, err)
	}
	a.Again = !running.Again
	_, _, err = e.queue.Insert(ctx, a, nil)
	return err
}

// refreshRunning reports whether another refresh of a's repository is
// running (the one a follow-up waits for): two refreshes of one repository
// never run at once, and the later one sees every change the earlier one
// may have missed.
func (e *Engine) refreshRunning(ctx context.Context, a RefreshArgs, self int64) (bool, error) {
	jobs, err := e.queue.Jobs(ctx, river.NewJobListParams().Kinds(RefreshArgs{}.Kind()).
		States(rivertype.JobStateRunning).First(1000))
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		var o RefreshArgs
		if j.ID == self || json.Unmarshal(j.EncodedArgs, &o) != nil {
			continue
		}
		if o.Owner == a.Owner && o.Repo == a.Repo {
			return true, nil
		}
	}
	return false, nil
}
