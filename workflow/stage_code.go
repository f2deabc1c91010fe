package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// pushRecord is what the code stage keeps once the branch is pushed, so a
// resumed job opens the PR without coding again.
type pushRecord struct {
	SHA     string       `json:"sha"`
	Items   []ItemStatus `json:"items"`
	Checks  []Check      `json:"checks"`
	Summary string       `json:"summary"`
	OK      bool         `json:"ok"`
	// Diagnostics are the language-server errors left (CodeResult's).
	Diagnostics []string `json:"diagnostics,omitempty"`
}

// code implements the plan as people left it, pushes the branch and opens
// the pull request; each part is skipped when a checkpoint says it is done.
func (s *runJob) code(ctx context.Context) (transition, error) {
	if err := s.step(ctx, StageCode, "reading the approved plan"); err != nil {
		return stay, err
	}
	spec, err := s.readSpec(ctx)
	if err != nil {
		return parked(StageCode, err)
	}
	plan, _, err := s.readPlan(ctx)
	if err != nil {
		return parked(StageCode, err)
	}
	s.run.Branch = s.branch()
	rec, err := s.pushed(ctx, spec, plan)
	if err != nil {
		return stay, err
	}
	s.diags = rec.Diagnostics
	if len(s.items) == 0 {
		s.items = rec.Items // resumed: the outcomes as the push recorded them
	}
	if !rec.OK {
		return s.end(lifecycle.Failed, fmt.Sprintf(
			"the change is incomplete, so I pushed branch `%s` with what did work and opened no pull request.\n%s",
			s.prHead(), incompleteWhy(rec))), nil
	}
	if err := s.openPR(ctx, spec, plan, rec); err != nil {
		return stay, err
	}
	return s.end(lifecycle.Done, ""), nil
}

// pushed returns the push record, coding and pushing first unless a
// checkpoint says that was done.
func (s *runJob) pushed(ctx context.Context, spec *work.Spec, plan *work.Plan) (*pushRecord, error) {
	st := s.e.d.Store
	if raw, ok, err := st.StepResult(ctx, s.run.ID, stepPushed); err != nil || ok {
		if err != nil {
			return nil, err
		}
		var rec pushRecord
		if err := json.Unmarshal([]byte(raw), &rec); err != nil {
			return nil, fmt.Errorf("read push checkpoint: %w", err)
		}
		return &rec, nil
	}
	if err := s.step(ctx, StageCode, fmt.Sprintf("implementing %s", count(len(plan.Items), "plan item"))); err != nil {
		return nil, err
	}
	wt, err := s.e.d.Git.Checkout(ctx, s.ref, s.run.Branch)
	if err != nil {
		return nil, s.checkoutFailed(ctx, err)
	}
	defer wt.Close()
	if rec, err := s.codePushedBefore(ctx, wt, commitMessage(s.run.Issue, spec)); err != nil || rec != nil {
		return rec, err
	}
	s.items = plan.Pending()
	res, err := s.e.d.Coder.Implement(ctx, wt.Workspace(), spec, plan, s.cfg, s.itemProgress(ctx))
	if f := s.spendFault(); f != nil {
		return nil, f // nothing is pushed from a coder whose calls were refused by a ledger failure
	}
	if res != nil && len(res.Items) > 0 {
		s.items = res.Items // the outcomes, for the comments that follow
		s.diags = res.Diagnostics
	}
	if res != nil {
		if uerr := s.addUsage(ctx, llm.RoleCoder, Spend{Usage: res.Usage, Cost: res.Cost}); uerr != nil {
			return nil, uerr
		}
	}
	if err != nil {
		return nil, agentFailed("coder", err)
	}
	if len(res.Changed) == 0 {
		return nil, permanent(fmt.Errorf("the coder changed no file.\n%s", incompleteWhy(&pushRecord{Items: res.Items, Checks: res.Checks})))
	}
	if err := s.save(ctx); err != nil { // cancelled meanwhile: push nothing
		return nil, err
	}
	sha, _, err := wt.Commit(ctx, commitMessage(s.run.Issue, spec), s.coAuthors()...)
	if errors.Is(err, ErrBlockedChange) {
		return nil, permanent(fmt.Errorf("commit: %w", err))
	}
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	// The coder's work is done and paid for: a progress comment GitHub
	// refuses now must not fail the stage and have it all coded again.
	if err := s.softStep(ctx, StageCode, "pushing "+s.run.Branch); err != nil {
		return nil, err
	}
	rec := &pushRecord{SHA: sha, Items: res.Items, Checks: res.Checks, Summary: res.Summary, OK: res.OK, Diagnostics: res.Diagnostics}
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	// The record is kept with the commit before the push: a crash after
	// the push finds it (codePushedBefore) instead of coding again on a
	// branch that already holds the change.
	if _, err := st.Checkpoint(ctx, s.run.ID, committedKey(sha), string(raw)); err != nil {
		return nil, err
	}
	if err := s.noteCommit(ctx, sha, stepPushed); err != nil {
		return nil, err
	}
	if err := wt.Push(ctx); err != nil {
		return nil, fmt.Errorf("push %s: %w", s.run.Branch, err)
	}
	if _, err := st.Checkpoint(ctx, s.run.ID, stepPushed, string(raw)); err != nil {
		return nil, err
	}
	return rec, nil
}

// committedKey names the push record kept with the code stage's commit
// sha before it is pushed.
func committedKey(sha string) string { return stepCommitted + "." + sha }

// codePushedBefore finds the commit an earlier attempt of the code stage
// pushed when the push checkpoint was not stored (a crash between the push
// and the checkpoint): the checked-out branch's head is a commit noted for
// the code stage, with its record. The coder is not run again on its own
// change (it would find nothing to change); nil when there is no such commit.
func (s *runJob) codePushedBefore(ctx context.Context, wt Worktree, msg string) (*pushRecord, error) {
	head, ok, err := s.headNotedFor(ctx, wt, msg, stepPushed)
	if err != nil || !ok {
		return nil, err
	}
	st := s.e.d.Store
	raw, ok, err := st.StepResult(ctx, s.run.ID, committedKey(head))
	if err != nil || !ok {
		return nil, err
	}
	var rec pushRecord
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return nil, fmt.Errorf("read commit record: %w", err)
	}
	if _, err := st.Checkpoint(ctx, s.run.ID, stepPushed, raw); err != nil {
		return nil, err
	}
	return &rec, nil
}

// openPR finds the branch's pull request or opens it and asks the
// requester to review; the run then ends.
func (s *runJob) openPR(ctx context.Context, spec *work.Spec, plan *work.Plan, rec *pushRecord) error {
	if err := s.step(ctx, StagePR, "opening the pull request"); err != nil {
		return err
	}
	o := s.run
	pr, err := s.gh.FindPR(ctx, o.Owner, o.Repo, s.prHead())
	if err == nil && pr.State != "open" {
		// An earlier run's PR was closed or merged: this run opens its own.
		pr, err = nil, ErrNotFound
	}
	if errors.Is(err, ErrNotFound) {
		pr, err = s.gh.CreatePR(ctx, o.Owner, o.Repo, NewPR{
			Title: prTitle(spec, o.Issue), Head: s.prHead(), Base: s.ref.Base,
			Body: fitPRBody(o.Issue, spec, plan, rec), Draft: s.cfg.Draft,
		})
	}
	if err != nil {
		return fmt.Errorf("open pull request: %w", err)
	}
	o.PRNumber, o.PRURL = pr.Number, pr.HTMLURL
	if err := s.save(ctx); err != nil {
		return err
	}
	if first, err := s.e.d.Store.Checkpoint(ctx, o.ID, stepPR, fmt.Sprint(pr.Number)); err != nil {
		return err
	} else if first && o.Requester != "" {
		if err := s.gh.RequestReviewers(ctx, o.Owner, o.Repo, pr.Number, o.Requester); err != nil {
			s.log.Warn("request review", "err", err) // the PR stands; a review request is a courtesy
		}
	}
	return nil
}

func (s *runJob) resetLabel(ctx context.Context) error {
	label := s.e.o.Label
	switch {
	case s.run.TriggerLabel != "":
		label = s.run.TriggerLabel
	case s.cfg != nil && s.cfg.Label != "":
		label = s.cfg.Label
	}
	err := s.gh.RemoveLabel(ctx, s.run.Owner, s.run.Repo, s.run.Issue, label)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("reset label: %w", err)
	}
	return nil
}

// coAuthors are the people credited on the run's commits: the requester
// (who labelled the issue or gave the command that started the run).
func (s *runJob) coAuthors(more ...string) []string {
	var out []string
	for _, login := range append([]string{s.run.Requester}, more...) {
		if login != "" && !strings.HasSuffix(login, "[bot]") && !slices.Contains(out, login) {
			out = append(out, login)
		}
	}
	return out
}

// commitMessage is the code stage's commit message. Its title is the
// spec's topic, words a model wrote: defused, so the commit closes no
// issue when it reaches the default branch.
func commitMessage(issue int, spec *work.Spec) string {
	return fmt.Sprintf("%s\n\nImplements the approved plan for #%d.\n", ghtext.DefuseText(prTitle(spec, issue)), issue)
}

func prTitle(spec *work.Spec, issue int) string {
	t := strings.TrimSpace(spec.Topic)
	if t == "" {
		t = fmt.Sprintf("Resolve issue #%d", issue)
	}
	if len(t) > 120 {
		t = clipUTF8(t, 117)
	}
	return plainDefuse(t)
}

// incompleteWhy lists failed items and checks in plain words.
func incompleteWhy(rec *pushRecord) string {
	var b strings.Builder
	for _, it := range rec.Items {
		if it.Status != "done" && it.Status != "skipped" {
			fmt.Fprintf(&b, "- `%s`: %s — %s\n", it.Path, it.Status, it.Reason)
		}
	}
	for _, c := range rec.Checks {
		if !c.OK {
			fmt.Fprintf(&b, "- check `%s` failed\n", c.Name)
		}
	}
	return b.String()
}
