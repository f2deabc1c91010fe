package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// Checkpoint names.
const (
	stepSpec = "spec"
	// stepSpecDraft holds the rendered spec between the explorer's answer
	// and the spec comment, so a retry after GitHub failed to take the
	// comment posts it instead of exploring (and paying) again.
	stepSpecDraft = "spec-draft"
	stepPushed    = "code.pushed"
	// stepCommitted (+ "." + sha) holds the push record of the code
	// stage's commit from before its push.
	stepCommitted = "code.committed"
	stepPR        = "pr"
)

// explore reads the repository at the base branch, writes the spec comment
// and hands over to plan. A spec that only asks questions parks the run.
func (s *runJob) explore(ctx context.Context) (transition, error) {
	st := s.e.d.Store
	if _, done, err := st.StepResult(ctx, s.run.ID, stepSpec); err != nil {
		return stay, err
	} else if done { // resumed after the spec was written
		return handOver(StagePlan, "spec written; planning"), nil
	}
	if first, err := st.Checkpoint(ctx, s.run.ID, "seen", ""); err != nil {
		return stay, err
	} else if first {
		// 👀 on the issue: the bot has it. A courtesy, never a failure.
		if err := s.gh.ReactIssue(ctx, s.run.Owner, s.run.Repo, s.run.Issue, "eyes"); err != nil {
			s.log.Warn("react to issue", "err", err)
		}
	}
	if err := s.step(ctx, StageExplore, "reading the repository"); err != nil {
		return stay, err
	}
	body, spec, err := s.specDraft(ctx)
	if err != nil {
		return stay, err
	}
	ic, err := s.gh.UpsertComment(ctx, s.run.Owner, s.run.Repo, s.run.Issue, ghtext.Marker{Kind: work.KindSpec}, body)
	if err != nil {
		return stay, fmt.Errorf("post spec comment: %w", err)
	}
	s.run.SpecCommentID, s.run.SpecBody = ic.ID, ic.Body
	if err := s.save(ctx); err != nil {
		return stay, err
	}
	if _, err := st.Checkpoint(ctx, s.run.ID, stepSpec, strconv.FormatInt(ic.ID, 10)); err != nil {
		return stay, err
	}
	if spec.NeedsAnswers() {
		return wait(StageExplore, openQuestions), nil
	}
	return handOver(StagePlan, "spec written; planning"), nil
}

// openQuestions is the step of a run whose spec only asks questions.
const openQuestions = "the spec has open questions: answer them in the issue and comment `/spec`, or add the files to the spec comment and comment `/plan`"

// specDraft returns the rendered spec and the spec: the checkpointed draft
// of an earlier attempt, else the explorer's answer (then checkpointed).
func (s *runJob) specDraft(ctx context.Context) (string, *work.Spec, error) {
	st := s.e.d.Store
	if body, ok, err := st.StepResult(ctx, s.run.ID, stepSpecDraft); err != nil {
		return "", nil, err
	} else if ok {
		if spec, err := work.ParseSpec(body); err == nil {
			return body, spec, nil
		}
		// Unreadable (a renderer change between versions): explore again.
		if err := st.ForgetSteps(ctx, s.run.ID, stepSpecDraft); err != nil {
			return "", nil, err
		}
	}
	is, err := s.gh.GetIssue(ctx, s.run.Owner, s.run.Repo, s.run.Issue)
	if err != nil {
		return "", nil, err
	}
	wt, err := s.e.d.Git.Checkout(ctx, s.ref, "")
	if err != nil {
		return "", nil, fmt.Errorf("check out %s/%s: %w", s.ref.Owner, s.ref.Repo, err)
	}
	defer wt.Close()
	issue := IssueText{Number: s.run.Issue, Title: is.Title, Body: is.Body}
	spec, usage, err := s.e.d.Explorer.Explore(ctx, wt.Workspace(), issue, s.cfg)
	if uerr := s.addUsage(ctx, llm.RoleExplorer, usage); uerr != nil {
		return "", nil, uerr
	}
	if err != nil {
		return "", nil, agentFailed("explorer", err)
	}
	body, err := fitSpec(spec, work.Meta{RunID: runID(s.run), Version: 1})
	if err != nil {
		return "", nil, err
	}
	if _, err := st.Checkpoint(ctx, s.run.ID, stepSpecDraft, body); err != nil {
		return "", nil, err
	}
	return body, spec, nil
}

// plan reads the spec comment as people left it, plans, and writes the plan
// comment with its approve box; the run then waits for approval.
func (s *runJob) plan(ctx context.Context) (transition, error) {
	if err := s.step(ctx, StagePlan, "reading the spec and planning"); err != nil {
		return stay, err
	}
	spec, err := s.readSpec(ctx)
	if err != nil {
		return parked(StagePlan, err)
	}
	if spec.NeedsAnswers() {
		return wait(StageExplore, "the spec still has open questions and no files: answer them in the issue and comment `/spec`, or add the files to the spec comment and comment `/plan`"), nil
	}
	wt, err := s.e.d.Git.Checkout(ctx, s.ref, "")
	if err != nil {
		return stay, fmt.Errorf("check out %s/%s: %w", s.ref.Owner, s.ref.Repo, err)
	}
	defer wt.Close()
	plan, usage, err := s.e.d.Planner.Plan(ctx, wt.Workspace(), spec, s.cfg)
	if uerr := s.addUsage(ctx, llm.RolePlanner, usage); uerr != nil {
		return stay, uerr
	}
	if err != nil {
		return stay, agentFailed("planner", err)
	}
	body, err := fitPlan(plan, work.Meta{RunID: runID(s.run), Version: 1})
	if err != nil {
		return stay, err
	}
	ic, err := s.gh.UpsertComment(ctx, s.run.Owner, s.run.Repo, s.run.Issue, ghtext.Marker{Kind: work.KindPlan}, body)
	if err != nil {
		return stay, fmt.Errorf("post plan comment: %w", err)
	}
	s.run.PlanCommentID, s.run.PlanBody = ic.ID, ic.Body
	if s.cfg.AutoImplement {
		return handOver(StageCode, "auto_implement is on: coding the plan"), nil
	}
	return wait(StageApproval, "waiting for approval: edit the plan if you like, then tick **Approve and implement** or comment `/implement`"), nil
}

// parked turns an unreadable or missing comment into a waiting run whose
// progress comment says what to fix; other errors pass through.
func parked(stage string, err error) (transition, error) {
	var ee *editError
	var me *missingError
	if errors.As(err, &ee) || errors.As(err, &me) {
		return waitForFix(stage, err), nil
	}
	return stay, err
}

// agentFailed is a model-driven stage that could not finish: the model
// client has already retried, so the run ends with the reason.
func agentFailed(role string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, llm.ErrModelFailed) {
		// The model's failure, not the issue's: the issue's author is
		// asked nothing; whoever runs the bot is told what to change.
		return permanent(fmt.Errorf("the %s could not finish because of the model, not this issue (nothing here needs "+
			"rewriting): %w. Comment `/retry` once the setting is changed", role, err))
	}
	return permanent(fmt.Errorf("the %s could not finish: %w", role, err))
}
