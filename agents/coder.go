package agents

import (
	"context"
	"errors"
	"strings"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
)

// Coder is workflow.Coder over coder.Coder, and the coder stage of Local.
type Coder struct {
	Models *Models
	// Options are the coder's base options (Sandbox, ...); CoderOptions
	// applies the repository's settings on top.
	Options coder.Options
	// AllowChecks is the server's ISSUESMITH_ALLOW_CHECK_COMMANDS: without
	// it a repository's run_commands is ignored (its checks would run the
	// repository's code on the bot's machine).
	AllowChecks bool
}

// OptionsFor is the coder's options for the repository whose settings are
// cfg: CoderOptions over a.Options and a.AllowChecks.
func (a *Coder) OptionsFor(cfg *config.Repo) coder.Options {
	return CoderOptions(a.Options, cfg, a.AllowChecks)
}

// New returns the coder for cfg talking to model; progress (may be nil)
// is told each plan item's start and outcome (coder.Options.Progress).
func (a *Coder) New(model llm.Model, cfg *config.Repo, progress work.Progress) (*coder.Coder, error) {
	opts := a.OptionsFor(cfg)
	opts.Progress = progress
	return coder.New(model, opts)
}

// new is New with the coder's tool calls recorded in the session ctx
// carries, if any.
func (a *Coder) new(ctx context.Context, model llm.Model, cfg *config.Repo, progress work.Progress) (*coder.Coder, error) {
	opts := a.OptionsFor(cfg)
	opts.Progress = progress
	if rec := session.From(ctx); rec != nil {
		opts.WrapTool = rec.Tool
	}
	return coder.New(model, opts)
}

// run makes the coder for cfg and runs fn with it on ws — the one confined
// view of the worktree the coder and the edit engine work through, which
// the worktree opened and closes. The result's cost is what the model
// client priced the coder's calls at.
func (a *Coder) run(ctx context.Context, ws *repo.Workspace, cfg *config.Repo, progress work.Progress, fn func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error)) (*workflow.CodeResult, error) {
	model, err := a.Models.ForRepo(cfg)
	if err != nil {
		return nil, err
	}
	var res *coder.Result
	sp, err := spendOf(model, func(m llm.Model) error {
		c, err := a.new(ctx, m, cfg, progress)
		if err != nil {
			return err
		}
		res, err = fn(c, ws)
		RecordCode(ctx, session.From(ctx), res)
		return err
	})
	if err != nil {
		// What the failed run spent is still charged: the stage counts a
		// result that comes with its error.
		out := &workflow.CodeResult{Usage: sp.Usage, Cost: sp.Cost}
		if res != nil {
			out = codeResult(res)
			out.Usage, out.Cost = sp.Usage, sp.Cost
		}
		return out, err
	}
	out := codeResult(res)
	out.Cost = sp.Cost
	return out, nil
}

// Implement runs the coder over the plan in the worktree's workspace ws; the coder
// tells progress each plan item's start and outcome (work.EventItem).
func (a *Coder) Implement(ctx context.Context, ws *repo.Workspace, spec *work.Spec, plan *work.Plan, cfg *config.Repo, progress work.Progress) (*workflow.CodeResult, error) {
	return a.run(ctx, ws, cfg, progress, func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error) {
		return c.Implement(ctx, ws, spec, plan)
	})
}

// Revise runs the coder on one review request: the last thread comment is
// the one to address, the earlier ones are context. A request without a
// file (a PR conversation comment or a review) is put to the coder once
// per changed file of the PR, in order, each free to decline; the results
// are merged.
func (a *Coder) Revise(ctx context.Context, ws *repo.Workspace, req workflow.Review, cfg *config.Repo) (*workflow.CodeResult, error) {
	rr := coder.ReviewRequest{Path: req.Path, Lines: coder.LineRange{Start: req.StartLine, End: req.Line}, DiffHunk: req.DiffHunk}
	if n := len(req.Thread); n > 0 {
		rr.Comment = req.Thread[n-1].Body
		for _, t := range req.Thread[:n-1] {
			rr.Thread = append(rr.Thread, t.Author+": "+t.Body)
		}
	}
	if req.Spec != nil {
		rr.Topic = req.Spec.Topic
	}
	paths := []string{req.Path}
	if req.Evidence != "" {
		rr.Evidence, rr.Plan = req.Evidence, planLines(req.Plan)
		if req.BaseSHA != "" {
			if d, err := ws.DiffSince(ctx, req.BaseSHA); err == nil {
				rr.Diff = d
			}
		}
		req.Path, req.Files = "", ciFiles(ws, req.Files, req.Evidence)
	}
	if req.Path == "" {
		if len(req.Files) == 0 {
			return nil, errors.New("revise: the review names no file and the pull request changes none")
		}
		paths = req.Files
	}
	return a.run(ctx, ws, cfg, nil, func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error) {
		var all *coder.Result
		for _, p := range paths {
			one := rr
			one.Path = p
			res, err := c.Revise(ctx, ws, one)
			if err != nil {
				return nil, err
			}
			all = mergeResults(all, res)
		}
		return all, nil
	})
}

// mergeResults adds b (a later revision of the same workspace) to a.
func mergeResults(a, b *coder.Result) *coder.Result {
	if a == nil {
		return b
	}
	a.Items = append(a.Items, b.Items...)
	a.Checks = b.Checks // the last checks saw every change
	a.Usage = a.Usage.Add(b.Usage)
	seen := map[string]bool{}
	for _, f := range a.Changes.Files {
		seen[f.Path] = true
	}
	for _, f := range b.Changes.Files {
		if !seen[f.Path] {
			a.Changes.Files = append(a.Changes.Files, f)
		}
	}
	a.Summary = strings.TrimSpace(a.Summary + "\n" + b.Summary)
	return a
}

// codeResult is the coder's result in the workflow's terms, from what
// coder.Result exports.
func codeResult(res *coder.Result) *workflow.CodeResult {
	out := &workflow.CodeResult{Summary: res.Summary, Usage: res.Usage, OK: res.OK(),
		Items: res.Statuses(), Changed: res.Changed()}
	for _, c := range res.LastChecks() {
		if c.Note {
			continue // information (a tool not installed), in the summary; not a check that failed
		}
		out.Checks = append(out.Checks, workflow.Check{Name: c.Name, OK: c.OK, Output: c.Output})
	}
	for _, d := range res.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, d.String())
	}
	return out
}
