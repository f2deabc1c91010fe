package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run states. A run is open while active or waiting; at most one open run
// exists per issue (a unique index enforces it).
const (
	StateActive    = "active"    // a job is working on it or queued
	StateWaiting   = "waiting"   // waiting for the plan's approval
	StateDone      = "done"      // ended with a pull request
	StateFailed    = "failed"    // ended with a comment saying why
	StateCancelled = "cancelled" // unlabelled, closed or /stop
)

// IssueKey names one issue.
type IssueKey struct {
	Owner string
	Repo  string
	Issue int
}

// String renders the key as owner/repo#n.
func (k IssueKey) String() string { return fmt.Sprintf("%s/%s#%d", k.Owner, k.Repo, k.Issue) }

// Run is one issue's journey from label to pull request.
type Run struct {
	ID             int64
	InstallationID int64
	IssueKey
	Requester         string
	TriggerLabel      string // the label that started the run ("" for a command)
	State             string
	Stage             string
	Step              string
	Reason            string // why the run ended, when it failed or was cancelled
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
	// Version counts the row's saves; a save is a compare-and-swap on it.
	Version int64
}

// Open reports whether the run has not ended.
func (r *Run) Open() bool { return r.State == StateActive || r.State == StateWaiting }

const runColumns = `id, installation_id, owner, repo, issue, requester, state, stage, step, reason,
	progress_comment_id, spec_comment_id, plan_comment_id, spec_body, plan_body, branch, pr_number, pr_url,
	prompt_tokens, completion_tokens, cost, created_at, updated_at, trigger_label, version`

func scanRun(row scanner) (*Run, error) {
	var r Run
	var created, updated int64
	err := row.Scan(&r.ID, &r.InstallationID, &r.Owner, &r.Repo, &r.Issue, &r.Requester, &r.State, &r.Stage, &r.Step, &r.Reason,
		&r.ProgressCommentID, &r.SpecCommentID, &r.PlanCommentID, &r.SpecBody, &r.PlanBody, &r.Branch, &r.PRNumber, &r.PRURL,
		&r.PromptTokens, &r.CompletionTokens, &r.Cost, &created, &updated, &r.TriggerLabel, &r.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	r.CreatedAt, r.UpdatedAt = time.Unix(created, 0), time.Unix(updated, 0)
	return &r, nil
}

// OpenRun returns the issue's open run, or creates one in state active with
// the given installation and requester, noting its repository as known
// (NoteRepo) with the same connection or transaction. created reports
// which happened.
// Concurrent callers for the same issue get the same run.
func (s rw) OpenRun(ctx context.Context, key IssueKey, installationID int64, requester string) (run *Run, created bool, err error) {
	if r, err := s.OpenRunFor(ctx, key); err == nil {
		return r, false, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, false, err
	}
	now := s.unix()
	var id int64
	err = s.c.queryRow(ctx, `INSERT INTO runs (installation_id, owner, repo, issue, requester, state, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
		installationID, key.Owner, key.Repo, key.Issue, requester, StateActive, now, now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) { // lost a race: another caller opened it
		r, err := s.OpenRunFor(ctx, key)
		return r, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("open run for %s: %w", key, err)
	}
	if err := s.NoteRepo(ctx, installationID, key.Owner, key.Repo); err != nil {
		return nil, false, err
	}
	r, err := s.Run(ctx, id)
	return r, true, err
}

// OpenRun is rw.OpenRun in a transaction of its own, so the run and its
// repository's note (NoteRepo) are written together or not at all. Inside
// a Tx, Tx.OpenRun writes both in that transaction.
func (s *Store) OpenRun(ctx context.Context, key IssueKey, installationID int64, requester string) (run *Run, created bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("open run for %s: begin: %w", key, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	run, created, err = rw{st: s, c: sqlConn{s: s, db: tx}}.OpenRun(ctx, key, installationID, requester)
	if err != nil {
		return nil, false, err
	}
	if err := tx.Commit(); err != nil {
		return nil, false, fmt.Errorf("open run for %s: commit: %w", key, err)
	}
	return run, created, nil
}

// OpenRunFor returns the issue's open run or ErrNotFound.
func (s rw) OpenRunFor(ctx context.Context, key IssueKey) (*Run, error) {
	r, err := scanRun(s.c.queryRow(ctx, `SELECT `+runColumns+` FROM runs
		WHERE owner = ? AND repo = ? AND issue = ? AND state IN ('active', 'waiting')`, key.Owner, key.Repo, key.Issue))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("find open run for %s: %w", key, err)
	}
	return r, err
}

// LatestRun returns the issue's most recent run, open or not, or ErrNotFound.
func (s rw) LatestRun(ctx context.Context, key IssueKey) (*Run, error) {
	r, err := scanRun(s.c.queryRow(ctx, `SELECT `+runColumns+` FROM runs
		WHERE owner = ? AND repo = ? AND issue = ? ORDER BY id DESC LIMIT 1`, key.Owner, key.Repo, key.Issue))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("find latest run for %s: %w", key, err)
	}
	return r, err
}

// RunByPR returns the most recent run that opened pull request pr in
// owner/repo, or ErrNotFound.
func (s rw) RunByPR(ctx context.Context, owner, repo string, pr int) (*Run, error) {
	r, err := scanRun(s.c.queryRow(ctx, `SELECT `+runColumns+` FROM runs
		WHERE owner = ? AND repo = ? AND pr_number = ? ORDER BY id DESC LIMIT 1`, owner, repo, pr))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("find run for %s/%s pull %d: %w", owner, repo, pr, err)
	}
	return r, err
}

// Run returns the run with id, or ErrNotFound.
func (s rw) Run(ctx context.Context, id int64) (*Run, error) {
	r, err := scanRun(s.c.queryRow(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("get run %d: %w", id, err)
	}
	return r, err
}

// ErrClosed is returned by SaveOpenRun when the run has ended meanwhile
// (cancelled by /stop, unlabel or close).
var ErrClosed = errors.New("run has ended")

// ErrStale is returned by a save whose copy of the run is older than the
// row: someone else saved the run since it was read. Nothing was written;
// the caller reads the run again (or stops and leaves the work to the
// writer that got there first).
var ErrStale = errors.New("run was changed meanwhile")

// SaveRun writes every mutable field of r but its usage (tokens and cost:
// AddUsage alone changes them, so a save from a copy read earlier loses
// none) and sets r.UpdatedAt. It is a compare-and-swap on r.Version: a save
// from a copy older than the row fails with ErrStale and writes nothing; a
// save that succeeds increments r.Version.
func (s rw) SaveRun(ctx context.Context, r *Run) error {
	return s.saveRun(ctx, r, false)
}

// SaveOpenRun is SaveRun for a run that must still be open in the database:
// a job's write never resurrects a run cancelled meanwhile. It returns
// ErrClosed when the run has ended (before ErrStale: an ended run is the
// stronger news).
func (s rw) SaveOpenRun(ctx context.Context, r *Run) error {
	return s.saveRun(ctx, r, true)
}

func (s rw) saveRun(ctx context.Context, r *Run, open bool) error {
	now := s.unix()
	cond := ""
	if open {
		cond = ` AND state IN ('active', 'waiting')`
	}
	n, err := s.c.exec(ctx, `UPDATE runs SET installation_id = ?, requester = ?, state = ?, stage = ?, step = ?, reason = ?,
		progress_comment_id = ?, spec_comment_id = ?, plan_comment_id = ?, spec_body = ?, plan_body = ?,
		branch = ?, pr_number = ?, pr_url = ?, updated_at = ?, trigger_label = ?, version = version + 1
		WHERE id = ? AND version = ?`+cond,
		r.InstallationID, r.Requester, r.State, r.Stage, r.Step, r.Reason, r.ProgressCommentID, r.SpecCommentID, r.PlanCommentID,
		r.SpecBody, r.PlanBody, r.Branch, r.PRNumber, r.PRURL, now, r.TriggerLabel, r.ID, r.Version)
	if err != nil {
		return fmt.Errorf("save run %d: %w", r.ID, err)
	}
	if n == 0 {
		cur, err := s.Run(ctx, r.ID)
		switch {
		case err != nil:
			return fmt.Errorf("save run %d: %w", r.ID, err)
		case open && !cur.Open():
			return fmt.Errorf("save run %d: %w", r.ID, ErrClosed)
		default:
			return fmt.Errorf("save run %d (version %d, stored %d): %w", r.ID, r.Version, cur.Version, ErrStale)
		}
	}
	r.Version++
	r.UpdatedAt = time.Unix(now, 0)
	return nil
}

// AddUsage adds tokens and cost to a run atomically and returns the totals.
func (s rw) AddUsage(ctx context.Context, id int64, prompt, completion int64, cost float64) (*Run, error) {
	_, err := s.c.exec(ctx, `UPDATE runs SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?,
		cost = cost + ?, updated_at = ? WHERE id = ?`, prompt, completion, cost, s.unix(), id)
	if err != nil {
		return nil, fmt.Errorf("add usage to run %d: %w", id, err)
	}
	return s.Run(ctx, id)
}

// Checkpoint records that step name of run id finished with result. The
// first record wins: a repeat keeps the earlier result and reports false.
func (s rw) Checkpoint(ctx context.Context, id int64, name, result string) (first bool, err error) {
	n, err := s.c.exec(ctx, `INSERT INTO run_steps (run_id, name, result, done_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, name) DO NOTHING`, id, name, result, s.unix())
	if err != nil {
		return false, fmt.Errorf("checkpoint %s of run %d: %w", name, id, err)
	}
	return n == 1, nil
}

// StepResult returns the recorded result of step name of run id; ok is
// false when the step has not finished.
func (s rw) StepResult(ctx context.Context, id int64, name string) (result string, ok bool, err error) {
	err = s.c.queryRow(ctx, `SELECT result FROM run_steps WHERE run_id = ? AND name = ?`, id, name).Scan(&result)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read step %s of run %d: %w", name, id, err)
	}
	return result, true, nil
}

// ForgetSteps removes the checkpoints of run id whose names start with any
// of prefixes, so those steps run again (/plan, /retry).
func (s rw) ForgetSteps(ctx context.Context, id int64, prefixes ...string) error {
	for _, p := range prefixes {
		p = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p)
		if _, err := s.c.exec(ctx, `DELETE FROM run_steps WHERE run_id = ? AND name LIKE ? ESCAPE '\'`, id, p+"%"); err != nil {
			return fmt.Errorf("forget steps %s of run %d: %w", p, id, err)
		}
	}
	return nil
}

// PreviousRun returns the issue's most recent run with an id below before,
// or ErrNotFound.
func (s rw) PreviousRun(ctx context.Context, key IssueKey, before int64) (*Run, error) {
	r, err := scanRun(s.c.queryRow(ctx, `SELECT `+runColumns+` FROM runs
		WHERE owner = ? AND repo = ? AND issue = ? AND id < ? ORDER BY id DESC LIMIT 1`, key.Owner, key.Repo, key.Issue, before))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("find run before %d for %s: %w", before, key, err)
	}
	return r, err
}

// SetProgressComment records the id of r's progress comment without
// touching any other field, as a compare-and-swap on r.Version like every
// save (ErrStale when r is older than the row; an ended run may still
// record it, so its last word is edited in place later). On success r
// holds the id and its new version.
func (s rw) SetProgressComment(ctx context.Context, r *Run, commentID int64) error {
	now := s.unix()
	n, err := s.c.exec(ctx, `UPDATE runs SET progress_comment_id = ?, updated_at = ?, version = version + 1
		WHERE id = ? AND version = ?`, commentID, now, r.ID, r.Version)
	if err != nil {
		return fmt.Errorf("set progress comment of run %d: %w", r.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("set progress comment of run %d (version %d): %w", r.ID, r.Version, ErrStale)
	}
	r.ProgressCommentID, r.Version, r.UpdatedAt = commentID, r.Version+1, time.Unix(now, 0)
	return nil
}

// NextGeneration increments the run's request counter and returns it.
func (s rw) NextGeneration(ctx context.Context, id int64) (int64, error) {
	var g int64
	err := s.c.queryRow(ctx, `UPDATE runs SET generation = generation + 1, updated_at = ? WHERE id = ? RETURNING generation`, s.unix(), id).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("next generation of run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("next generation of run %d: %w", id, err)
	}
	return g, nil
}

// Step is one checkpoint of a run: its name and recorded result.
type Step struct {
	Name   string
	Result string
}

// Steps returns the checkpoints of run id whose names start with prefix,
// sorted by name.
func (s rw) Steps(ctx context.Context, id int64, prefix string) ([]Step, error) {
	like := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
	rows, err := s.c.query(ctx, `SELECT name, result FROM run_steps
		WHERE run_id = ? AND name LIKE ? ESCAPE '\' ORDER BY name`, id, like)
	if err != nil {
		return nil, fmt.Errorf("list steps %s of run %d: %w", prefix, id, err)
	}
	defer rows.Close()
	var out []Step
	for rows.Next() {
		var st Step
		if err := rows.Scan(&st.Name, &st.Result); err != nil {
			return nil, fmt.Errorf("list steps %s of run %d: %w", prefix, id, err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
