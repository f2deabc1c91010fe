package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/store"
)

// LabelArgs is the job that decides whether a label added to an issue is
// the repository's trigger label (.github/issuesmith.yml `label`, default
// Options.Label) and, if so, starts a run.
type LabelArgs struct {
	InstallationID int64  `json:"installation_id"`
	Owner          string `json:"owner" river:"unique"`
	Repo           string `json:"repo" river:"unique"`
	Issue          int    `json:"issue" river:"unique"`
	Label          string `json:"label" river:"unique"`
	Sender         string `json:"sender"`
}

// Kind names the job kind in River.
func (LabelArgs) Kind() string { return "issuesmith_label" }

// InsertOpts: one check per issue and label while it waits.
func (LabelArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: store.UniqueWhileQueued()}
}

func (e *Engine) labeled(ctx context.Context, c *completion, ev Event) error {
	if _, err := openRunFor(ctx, e.d.Store, ev.key()); err == nil {
		return ErrIgnored // a run is already going
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return e.queueJob(ctx, c, LabelArgs{InstallationID: ev.InstallationID, Owner: ev.Owner, Repo: ev.Repo,
		Issue: ev.Number, Label: ev.Label, Sender: ev.Sender}, nil)
}

// unlabeled cancels the open run when the label removed is the one that
// started it (or, for a run started by a command, the default label).
func (e *Engine) unlabeled(ctx context.Context, c *completion, ev Event) error {
	run, err := openRunFor(ctx, e.d.Store, ev.key())
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored
	}
	if err != nil {
		return err
	}
	trigger := run.TriggerLabel
	if trigger == "" {
		trigger = e.o.Label
	}
	if !strings.EqualFold(ev.Label, trigger) {
		return ErrIgnored
	}
	return e.cancel(ctx, c, ev.key(), fmt.Sprintf("the %q label was removed by @%s", ev.Label, ev.Sender), true)
}

type labelWorker struct {
	river.WorkerDefaults[LabelArgs]
	e *Engine
}

// Timeout bounds a label job (River itself has no job timeout here).
func (w *labelWorker) Timeout(*river.Job[LabelArgs]) time.Duration { return 5 * time.Minute }

// Work reads the repository's trigger label and starts a run when it is the
// label added. An invalid config file still starts a run for the default
// label, so the run can say what is wrong with the file.
func (w *labelWorker) Work(ctx context.Context, job *river.Job[LabelArgs]) error {
	// GitHub's rate limit is a wait, not a failure: the engine's rateWait
	// snoozes the check until the reset (five failed attempts would drop
	// the label without a word).
	return w.work(ctx, completing(job), job.Args)
}

func (w *labelWorker) work(ctx context.Context, c *completion, a LabelArgs) error {
	e := w.e
	gh, err := e.d.GitHub.Client(ctx, a.InstallationID)
	if err != nil {
		return err
	}
	r, err := gh.Repository(ctx, a.Owner, a.Repo)
	if err != nil {
		return err
	}
	want := e.o.Label
	cfg, err := readRepoConfig(ctx, gh, a.Owner, a.Repo, r.DefaultBranch)
	var perm errPermanent
	switch {
	case errors.As(err, &perm):
		// Invalid file: the default label still starts a run that reports it.
	case err != nil:
		return err
	case cfg.Label != "":
		want = cfg.Label
	}
	if !strings.EqualFold(a.Label, want) {
		e.observe("label", "ignored")
		return nil
	}
	// The label may have been removed again before this job ran; that
	// removal found no run to cancel, so look at the issue as it is now.
	is, err := gh.GetIssue(ctx, a.Owner, a.Repo, a.Issue)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(is.Labels, func(l string) bool { return strings.EqualFold(l, a.Label) }) {
		e.observe("label", "ignored")
		return nil
	}
	ev := Event{Kind: Labeled, InstallationID: a.InstallationID, Owner: a.Owner, Repo: a.Repo, Number: a.Issue,
		Sender: a.Sender, Label: a.Label}
	if err := e.startRun(ctx, c, ev, StageExplore, false); err != nil {
		if !errors.Is(err, ErrIgnored) {
			return err
		}
		e.sayLoop(ctx, ev, err)
	}
	e.observe("label", "ok")
	return nil
}

// readRepoConfig reads .github/issuesmith.yml at ref: a missing file gives
// the defaults; an invalid one is a permanent error naming the key.
func readRepoConfig(ctx context.Context, gh RepoFiles, owner, repo, ref string) (*config.Repo, error) {
	data, err := gh.FileContent(ctx, owner, repo, RepoConfigPath, ref)
	if errors.Is(err, ErrNotFound) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", RepoConfigPath, err)
	}
	cfg, err := config.ParseRepo(data)
	if err != nil {
		return nil, permanent(fmt.Errorf("`%s` is invalid: %v. Nothing runs until it is fixed; then comment `/retry`", RepoConfigPath, err))
	}
	return cfg, nil
}
