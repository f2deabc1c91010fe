package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/cievidence"
	srec "github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// The CI fix loop: when the repository's own CI fails on the bot's pull
// request, the failing checks' evidence goes to the coder and its fix is
// pushed as one commit per round. A CI job looks at one head commit
// (StageArgs.Head); its outcome is the checkpoint ci.<head> (a ciRecord),
// so a repeated or resumed job does nothing twice, and the PR's CI comment
// is rendered from those records.

// Outcomes of a CI job (ciRecord.Outcome).
const (
	ciFixed       = "fixed"       // a fix round pushed a commit
	ciNoFix       = "nofix"       // a fix round changed nothing (the coder's reason in Failure)
	ciGreen       = "green"       // every check passed
	ciPreExisting = "preexisting" // only checks that fail on the base commit too
	ciRepeat      = "repeat"      // the same failure came back after a fix
	ciPerson      = "person"      // someone else pushed to the branch
	ciLimit       = "limit"       // out of rounds
	ciEnded       = "ended"       // the pull request is closed or merged
	ciOff         = "off"         // /retry with ci.fix_rounds: 0
	ciSuperseded  = "superseded"  // a newer commit is the head now
	ciNone        = "none"        // /retry, but no check ran on the head
)

// ciRecord is what a CI job concluded about one head commit.
type ciRecord struct {
	Seq     int      `json:"seq"` // order of the records
	Head    string   `json:"head"`
	Outcome string   `json:"outcome"`
	Round   int      `json:"round,omitempty"`
	Checks  []string `json:"checks,omitempty"` // failing checks acted on
	Base    []string `json:"base,omitempty"`   // failing on the base commit too
	Sigs    []string `json:"sigs,omitempty"`   // cievidence.Signature of each
	SHA     string   `json:"sha,omitempty"`    // the round's commit
	Files   []string `json:"files,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Failure string   `json:"failure,omitempty"`
	Note    string   `json:"note,omitempty"` // e.g. logs unavailable
	Ready   bool     `json:"ready,omitempty"`
	Retry   string   `json:"retry,omitempty"` // who asked with /retry
	Tokens  int64    `json:"tokens,omitempty"`
	Cost    float64  `json:"cost,omitempty"`
	// Quiet records were not shown (a PR green at once, a superseded
	// head, failures while only ready_when_green is on) and never are.
	Quiet bool `json:"quiet,omitempty"`
}

const ciPrefix = "ci."

// ciKey names the record of head; a /retry (comment id) gets its own.
func ciKey(head string, retry int64) string {
	if retry != 0 {
		return fmt.Sprintf("%s%s.retry%d", ciPrefix, head, retry)
	}
	return ciPrefix + head
}

// ciFinished queues a CI job for each of the bot's pull requests the
// event names.
func (e *Engine) ciFinished(ctx context.Context, c *completion, ev Event) error {
	if len(ev.PRs) == 0 && ev.Head == "" && ev.SHA != "" {
		prs, err := e.prsAt(ctx, ev)
		if err != nil {
			return err
		}
		ev.PRs = prs
	}
	if len(ev.PRs) == 0 {
		return e.ciFinishedOnFork(ctx, c, ev)
	}
	queued := false
	for _, n := range ev.PRs {
		run, err := runByPR(ctx, e.d.Store, ev.Owner, ev.Repo, n)
		if errors.Is(err, store.ErrNotFound) {
			continue // not the bot's pull request
		}
		if err != nil {
			return err
		}
		if err := e.insert(ctx, c, run, StageArgs{Stage: StageCI, Head: ev.SHA}); err != nil {
			return err
		}
		queued = true
	}
	if !queued {
		return ErrIgnored
	}
	return nil
}

// ci looks at the checks of a head commit of the run's pull request and
// acts: a fix round for failures that are the PR's, ready for review when
// all passed, or a stop with its reason. queued is when the job was made:
// checks still running are looked at again every CIPoll until CIWait.
func (s *runJob) ci(ctx context.Context, a StageArgs, queued time.Time) error {
	o := s.run
	if o.PRNumber == 0 {
		return nil
	}
	if s.cfg.CI.FixRounds == 0 && a.CommentID == 0 && !s.cfg.CI.ReadyWhenGreen {
		return nil // the loop is off
	}
	pr, err := s.gh.GetPR(ctx, o.Owner, o.Repo, o.PRNumber)
	if err != nil {
		return err
	}
	head := a.Head
	if head == "" {
		head = pr.HeadSHA
	}
	key := ciKey(head, a.CommentID)
	if _, done, err := s.e.d.Store.StepResult(ctx, o.ID, key); err != nil || done {
		return err
	}
	recs, err := s.ciRecords(ctx)
	if err != nil {
		return err
	}
	rec := &ciRecord{Seq: len(recs) + 1, Head: head, Retry: a.Author}
	if pr.State != "open" {
		rec.Outcome = ciEnded
		return s.ciSave(ctx, key, rec, recs, a.CommentID != 0)
	}
	if a.CommentID != 0 && s.cfg.CI.FixRounds == 0 {
		rec.Outcome = ciOff
		return s.ciSave(ctx, key, rec, recs, true)
	}
	headChecks, err := s.ciChecks(ctx, head)
	if err != nil {
		return err
	}
	baseChecks, err := s.ciChecks(ctx, pr.BaseSHA)
	if err != nil {
		return err
	}
	d := cievidence.Decide(headChecks, baseChecks)
	if !d.Complete {
		if len(headChecks) == 0 && a.CommentID != 0 {
			rec.Outcome = ciNone // /retry where no CI ran: say so
			return s.ciSave(ctx, key, rec, recs, true)
		}
		if time.Since(queued) > s.e.o.CIWait {
			s.log.Info("CI did not finish on the head commit; not waiting longer", "head", head)
			return nil
		}
		return river.JobSnooze(s.e.o.CIPoll)
	}
	rec.Base = names(d.PreExisting)
	if head != pr.HeadSHA {
		return s.ciSuperseded(ctx, key, rec, recs, pr.HeadSHA, d)
	}
	switch {
	case len(d.Ours) == 0 && len(d.PreExisting) == 0:
		return s.ciGreen(ctx, key, rec, recs, pr)
	case s.cfg.CI.FixRounds == 0 && a.CommentID == 0:
		rec.Outcome = ciOff // only ready_when_green is on: failures are the people's
		return s.ciSave(ctx, key, rec, recs, false)
	case len(d.Ours) == 0:
		rec.Outcome = ciPreExisting
		return s.ciSave(ctx, key, rec, recs, true)
	}
	return s.ciRound(ctx, key, rec, recs, pr, d, a)
}

// ciGreen records a passing head and marks the draft ready for review
// when the repository asks for it.
func (s *runJob) ciGreen(ctx context.Context, key string, rec *ciRecord, recs []ciRecord, pr *PullRequest) error {
	rec.Outcome = ciGreen
	if s.cfg.CI.ReadyWhenGreen && pr.Draft {
		if err := s.gh.MarkReady(ctx, s.run.Owner, s.run.Repo, s.run.PRNumber); err != nil {
			return err
		}
		rec.Ready = true
	}
	// A PR that passed at once needs no CI comment.
	return s.ciSave(ctx, key, rec, recs, slices.ContainsFunc(recs, func(r ciRecord) bool { return !r.Quiet }))
}

// ciSuperseded handles a job for a commit that is no longer the head. When
// the head is the commit this very round pushed before a crash (noted
// before the push), the round is recorded as done; otherwise the newer
// commit gets its own CI job and this one records nothing to show.
func (s *runJob) ciSuperseded(ctx context.Context, key string, rec *ciRecord, recs []ciRecord, cur string, d cievidence.Decision) error {
	rec.Outcome = ciSuperseded
	if round, ok, err := s.e.d.Store.StepResult(ctx, s.run.ID, commitKey(cur)); err != nil {
		return err
	} else if ok && round == key {
		rec.Outcome, rec.SHA, rec.Round = ciFixed, cur, ciRounds(recs)+1
		rec.Checks, rec.Sigs = names(d.Ours), signatures(d.Ours)
		var pushed reviseRecord
		if raw, ok, err := s.e.d.Store.StepResult(ctx, s.run.ID, key+".pushed"); err != nil {
			return err
		} else if ok && json.Unmarshal([]byte(raw), &pushed) == nil {
			rec.Files, rec.Summary, rec.Tokens, rec.Cost = pushed.Files, pushed.Summary, pushed.Tokens, pushed.Cost
		}
	}
	return s.ciSave(ctx, key, rec, recs, rec.Outcome == ciFixed)
}

// ciRound runs one fix round on the failures that are the PR's, unless a
// stop rule says not to.
func (s *runJob) ciRound(ctx context.Context, key string, rec *ciRecord, recs []ciRecord, pr *PullRequest,
	d cievidence.Decision, a StageArgs) error {
	o := s.run
	ours, note, err := s.ciEvidence(ctx, d.Ours)
	if err != nil {
		return err
	}
	rec.Checks, rec.Sigs, rec.Note = names(ours), signatures(ours), note
	asked := a.CommentID != 0 // a person's /retry overrides the stop rules
	if !asked {
		mine, err := s.botCommit(ctx, pr.HeadSHA)
		if err != nil {
			return err
		}
		switch {
		case !mine:
			rec.Outcome = ciPerson
		case ciRounds(recs) >= s.cfg.CI.FixRounds+ciRetries(recs):
			rec.Outcome = ciLimit
		case repeated(recs, rec.Sigs):
			rec.Outcome = ciRepeat
		}
		if rec.Outcome != "" {
			return s.ciSave(ctx, key, rec, recs, true)
		}
	}
	if err := s.e.loopGuard(ctx, s.e.d.Store, s.run.IssueKey, loopCI); err != nil {
		var le *LoopError
		if !errors.As(err, &le) {
			return err
		}
		rec.Outcome, rec.Failure = ciNoFix, le.Error()
		return s.ciSave(ctx, key, rec, recs, true)
	}
	rec.Round = ciRounds(recs) + 1
	ctx = s.record(ctx, srec.Round(srec.StageCI, rec.Round), "ci "+key)
	if err := s.ciComment(ctx, append(recs, ciRecord{Seq: rec.Seq, Head: rec.Head, Outcome: "working", Round: rec.Round,
		Checks: rec.Checks})); err != nil {
		s.log.Warn("CI comment not updated", "err", err)
	}
	plan, _, err := s.readPlan(ctx)
	if _, limited := rateLimited(err); limited {
		return err // the plan is there: wait for GitHub's limit, not fix without it
	}
	if err != nil {
		plan = nil // an unreadable plan does not stop a CI fix
	}
	files, err := s.prFiles(ctx)
	if err != nil {
		return err
	}
	req := Review{Files: files, Evidence: cievidence.Render(ours, 0), Plan: plan, BaseSHA: pr.BaseSHA,
		Thread: []ThreadComment{{Author: "CI", Body: "Fix the failing checks: " + strings.Join(rec.Checks, ", ")}}}
	msg := fmt.Sprintf("Fix CI: %s\n\nRound %d of the CI fix loop on #%d.\n", strings.Join(rec.Checks, ", "), rec.Round, o.PRNumber)
	pushed, err := s.revisePushed(ctx, key+".pushed", req, msg, a.Author, key)
	if err != nil {
		return err
	}
	rec.SHA, rec.Files, rec.Summary, rec.Failure = pushed.SHA, pushed.Files, pushed.Summary, pushed.Failure
	rec.Tokens, rec.Cost = pushed.Tokens, pushed.Cost
	rec.Outcome = ciFixed
	if pushed.Failure != "" || !pushed.Changed {
		rec.Outcome = ciNoFix
	}
	if err := s.ciSave(ctx, key, rec, recs, true); err != nil {
		return err
	}
	if err := s.progress(ctx); err != nil { // the issue's totals now include the round
		s.log.Warn("progress comment not updated", "err", err)
	}
	return nil
}

// ciSave records the outcome, then (show) updates the CI comment.
func (s *runJob) ciSave(ctx context.Context, key string, rec *ciRecord, recs []ciRecord, show bool) error {
	rec.Quiet = !show
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if show {
		if err := s.ciComment(ctx, append(recs, *rec)); err != nil {
			return err
		}
	}
	_, err = s.e.d.Store.Checkpoint(ctx, s.run.ID, key, string(raw))
	return err
}

// ciRecords are the run's CI records in the order they were made.
func (s *runJob) ciRecords(ctx context.Context) ([]ciRecord, error) {
	steps, err := s.e.d.Store.Steps(ctx, s.run.ID, ciPrefix)
	if err != nil {
		return nil, err
	}
	var out []ciRecord
	for _, st := range steps {
		if strings.HasSuffix(st.Name, ".pushed") {
			continue
		}
		var r ciRecord
		if json.Unmarshal([]byte(st.Result), &r) == nil && r.Outcome != "" {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b ciRecord) int { return a.Seq - b.Seq })
	return out, nil
}
