package workflow

import (
	"context"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// Run is one issue's journey as the workflow keeps it: which issue, its
// lifecycle status, the comments, branch and pull request it made, what it
// spent. The store keeps it as a row (store.Run); the core reads and saves
// it only through the functions of this file, so no store type reaches a
// stage, a port or a renderer.
type Run struct {
	ID             int64
	InstallationID int64
	IssueKey
	Requester    string
	TriggerLabel string // the label that started the run ("" for a command)
	// Status is the part lifecycle decides: stage, state, step, reason.
	// Only moveRun changes its stage and state.
	lifecycle.Status
	ProgressCommentID int64
	SpecCommentID     int64
	PlanCommentID     int64
	SpecBody          string // the spec comment body as last written or read
	PlanBody          string // the plan comment body as last written or read
	Branch            string
	PRNumber          int
	PRURL             string
	PromptTokens      int64
	CompletionTokens  int64
	Cost              float64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// version is the row's: every save is a compare-and-swap on it.
	version int64
}

// IssueKey names one issue.
type IssueKey struct {
	Owner string
	Repo  string
	Issue int
}

// String renders the key as owner/repo#n.
func (k IssueKey) String() string { return fmt.Sprintf("%s/%s#%d", k.Owner, k.Repo, k.Issue) }

func (k IssueKey) row() store.IssueKey {
	return store.IssueKey{Owner: k.Owner, Repo: k.Repo, Issue: k.Issue}
}

// Open reports whether the run has not ended.
func (r *Run) Open() bool { return lifecycle.Open(r.State) }

func runOf(w *store.Run) *Run {
	return &Run{ID: w.ID, InstallationID: w.InstallationID,
		IssueKey:  IssueKey{Owner: w.Owner, Repo: w.Repo, Issue: w.Issue},
		Requester: w.Requester, TriggerLabel: w.TriggerLabel,
		Status:            lifecycle.Status{Stage: w.Stage, State: w.State, Step: w.Step, Reason: w.Reason},
		ProgressCommentID: w.ProgressCommentID, SpecCommentID: w.SpecCommentID, PlanCommentID: w.PlanCommentID,
		SpecBody: w.SpecBody, PlanBody: w.PlanBody, Branch: w.Branch, PRNumber: w.PRNumber, PRURL: w.PRURL,
		PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, Cost: w.Cost,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, version: w.Version}
}

func (r *Run) row() *store.Run {
	return &store.Run{ID: r.ID, InstallationID: r.InstallationID, IssueKey: r.IssueKey.row(),
		Requester: r.Requester, TriggerLabel: r.TriggerLabel,
		State: r.State, Stage: r.Stage, Step: r.Step, Reason: r.Reason,
		ProgressCommentID: r.ProgressCommentID, SpecCommentID: r.SpecCommentID, PlanCommentID: r.PlanCommentID,
		SpecBody: r.SpecBody, PlanBody: r.PlanBody, Branch: r.Branch, PRNumber: r.PRNumber, PRURL: r.PRURL,
		PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, Cost: r.Cost,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Version: r.version}
}

// runRows is where runs are read and saved: the store itself or one of
// its transactions.
type runRows interface {
	Run(ctx context.Context, id int64) (*store.Run, error)
	LatestRun(ctx context.Context, key store.IssueKey) (*store.Run, error)
	OpenRunFor(ctx context.Context, key store.IssueKey) (*store.Run, error)
	RunByPR(ctx context.Context, owner, repo string, pr int) (*store.Run, error)
	PreviousRun(ctx context.Context, key store.IssueKey, before int64) (*store.Run, error)
	OpenRun(ctx context.Context, key store.IssueKey, installationID int64, requester string) (*store.Run, bool, error)
	OpenRunsOf(ctx context.Context, installationID int64, repos []string) ([]*store.Run, error)
	SaveRun(ctx context.Context, r *store.Run) error
	SaveOpenRun(ctx context.Context, r *store.Run) error
	SetProgressComment(ctx context.Context, r *store.Run, commentID int64) error
}

func one(w *store.Run, err error) (*Run, error) {
	if err != nil {
		return nil, err
	}
	return runOf(w), nil
}

func getRun(ctx context.Context, rows runRows, id int64) (*Run, error) { return one(rows.Run(ctx, id)) }

func latestRun(ctx context.Context, rows runRows, key IssueKey) (*Run, error) {
	return one(rows.LatestRun(ctx, key.row()))
}

func openRunFor(ctx context.Context, rows runRows, key IssueKey) (*Run, error) {
	return one(rows.OpenRunFor(ctx, key.row()))
}

func runByPR(ctx context.Context, rows runRows, owner, repo string, pr int) (*Run, error) {
	return one(rows.RunByPR(ctx, owner, repo, pr))
}

func previousRun(ctx context.Context, rows runRows, key IssueKey, before int64) (*Run, error) {
	return one(rows.PreviousRun(ctx, key.row(), before))
}

// openRun returns the issue's open run, or a new one (created).
func openRun(ctx context.Context, rows runRows, key IssueKey, installationID int64, requester string) (*Run, bool, error) {
	w, created, err := rows.OpenRun(ctx, key.row(), installationID, requester)
	if err != nil {
		return nil, false, err
	}
	return runOf(w), created, nil
}

func openRunsOf(ctx context.Context, rows runRows, installationID int64, repos []string) ([]*Run, error) {
	ws, err := rows.OpenRunsOf(ctx, installationID, repos)
	if err != nil {
		return nil, err
	}
	out := make([]*Run, len(ws))
	for i, w := range ws {
		out[i] = runOf(w)
	}
	return out, nil
}

// saveRun saves r (store.SaveRun: a compare-and-swap on its version).
func saveRun(ctx context.Context, rows runRows, r *Run) error { return save(ctx, rows.SaveRun, r) }

// saveOpenRun saves r, which must still be open (store.SaveOpenRun).
func saveOpenRun(ctx context.Context, rows runRows, r *Run) error {
	return save(ctx, rows.SaveOpenRun, r)
}

func save(ctx context.Context, fn func(context.Context, *store.Run) error, r *Run) error {
	w := r.row()
	if err := fn(ctx, w); err != nil {
		return err
	}
	r.version, r.UpdatedAt = w.Version, w.UpdatedAt
	return nil
}

// setProgressComment records r's progress comment id alone (versioned).
func setProgressComment(ctx context.Context, rows runRows, r *Run, id int64) error {
	w := r.row()
	if err := rows.SetProgressComment(ctx, w, id); err != nil {
		return err
	}
	r.ProgressCommentID, r.version, r.UpdatedAt = id, w.Version, w.UpdatedAt
	return nil
}
