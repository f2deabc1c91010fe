package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
)

// This file adapts the agents and git to the workflow's small interfaces:
// the workflow hands a worktree directory, these open the Workspace, build
// the summaries index, run the agent and report usage.

// models gives the model client for a repository: the server's (built
// from config.Model.LLM: protocol, temperature, completion cap, no-stream,
// prices per model), or one with the repository's per-role settings of
// .github/issuesmith.yml (model, temperature, protocol,
// max_completion_tokens) applied by config.Model.LLMFor.
type models struct {
	conf *config.Model
	def  llm.Model
}

// newModels builds the server's model client from its settings; errors
// name the ISSUESMITH_MODEL_* variable to change.
func newModels(conf *config.Model) (*models, error) {
	lc, err := conf.LLM()
	if err != nil {
		return nil, err
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return nil, err
	}
	return &models{conf: conf, def: client}, nil
}

// forRepo is the model for a run of the repository whose settings are cfg.
func (m *models) forRepo(cfg *config.Repo) (llm.Model, error) {
	if cfg == nil || len(cfg.LLMRoles()) == 0 {
		return m.def, nil
	}
	lc, err := m.conf.LLMFor(cfg)
	if err != nil {
		return nil, permanentConfig(err)
	}
	c, err := llm.NewClient(lc)
	if err != nil {
		return nil, permanentConfig(err)
	}
	return c, nil
}

// permanentConfig words an error in the repository's model settings.
func permanentConfig(err error) error {
	return fmt.Errorf("the model settings of %s: %w", config.RepoPath, err)
}

// spendOf runs fn with a model that records its calls and returns their
// tokens and cost (llm.Response.Cost, priced per model by the client).
func spendOf(model llm.Model, fn func(m llm.Model) error) (workflow.Spend, error) {
	var l llm.Ledger
	err := fn(l.Track("call", model))
	_, total := l.Run("call")
	return workflow.Spend{Usage: total.Usage, Cost: total.Cost}, err
}

// explorerAgent is workflow.Explorer over preagent.
type explorerAgent struct {
	models *models
	cache  summaries.Cache
	opts   preagent.Options
}

// Explore builds the summaries index from the cache and runs the explorer
// with the repository's explorer budget and observer setting.
func (a *explorerAgent) Explore(ctx context.Context, dir string, is preagent.Issue, cfg *config.Repo) (*work.Spec, workflow.Spend, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, workflow.Spend{}, err // names the workspace already
	}
	defer ws.Close()
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, workflow.Spend{}, err
	}
	var spec *work.Spec
	u, err := spendOf(model, func(m llm.Model) error {
		// No model here: summaries come from the cache (filled by the
		// refresh after each push) or from outlines, so exploring never
		// waits for a repository-wide summarisation.
		idx, err := summaries.Build(ctx, ws, summaries.Options{Cache: a.cache})
		if err != nil {
			return fmt.Errorf("summaries: %w", err)
		}
		opts := a.opts
		opts.Budget = cfg.Role(llm.RoleExplorer).Budget()
		opts.ObserverBudget = cfg.Role(llm.RoleObserver).Budget()
		opts.NoObserver = !cfg.Observer
		res, err := preagent.New(m, ws, idx, opts).Explore(ctx, is)
		if err != nil {
			return err
		}
		if res.Spec == nil {
			return fmt.Errorf("the explorer stopped (%s) without a spec", res.Reason)
		}
		spec = res.Spec
		return nil
	})
	return spec, u, err
}

// coderAgent is workflow.Coder over coder.Coder.
type coderAgent struct {
	models *models
	opts   coder.Options
	// allowChecks is the server's ISSUESMITH_ALLOW_CHECK_COMMANDS: without
	// it a repository's run_commands is ignored (its checks would run the
	// repository's code on the bot's machine).
	allowChecks bool
	// open opens the worktree as a Workspace; nil means repo.OpenWorkspace
	// (tests watch the workspace it returns).
	open func(dir string) (*repo.Workspace, error)
}

// run opens the workspace at dir and the coder for cfg (telling progress,
// which may be nil, each item's start and outcome), runs fn, and closes the
// workspace. The result's cost is what the model client priced the coder's
// calls at.
func (a *coderAgent) run(dir string, cfg *config.Repo, progress func(coder.ItemProgress), fn func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error)) (*workflow.CodeResult, error) {
	open := a.open
	if open == nil {
		open = repo.OpenWorkspace
	}
	ws, err := open(dir)
	if err != nil {
		return nil, err // names the workspace already
	}
	defer ws.Close()
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, err
	}
	var res *coder.Result
	sp, err := spendOf(model, func(m llm.Model) error {
		opts := a.options(cfg)
		opts.Progress = progress
		c, err := coder.New(m, opts)
		if err != nil {
			return err
		}
		res, err = fn(c, ws)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := codeResult(res)
	out.Cost = sp.Cost
	return out, nil
}

// Implement runs the coder over the plan in the worktree at dir, telling
// progress when a plan item starts or ends (see itemProgress).
func (a *coderAgent) Implement(ctx context.Context, dir string, spec *work.Spec, plan *work.Plan, cfg *config.Repo, progress workflow.Progress) (*workflow.CodeResult, error) {
	return a.run(dir, cfg, itemProgress(plan, progress), func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error) {
		return c.Implement(ctx, ws, spec, plan)
	})
}

// Revise runs the coder on one review request: the last thread comment is
// the one to address, the earlier ones are context. A request without a
// file (a PR conversation comment or a review) is put to the coder once
// per changed file of the PR, in order, each free to decline; the results
// are merged.
func (a *coderAgent) Revise(ctx context.Context, dir string, req workflow.Review, cfg *config.Repo) (*workflow.CodeResult, error) {
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
	if req.Path == "" {
		if len(req.Files) == 0 {
			return nil, errors.New("revise: the review names no file and the pull request changes none")
		}
		paths = req.Files
	}
	return a.run(dir, cfg, nil, func(c *coder.Coder, ws *repo.Workspace) (*coder.Result, error) {
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

// options maps the repository's settings onto the coder's.
func (a *coderAgent) options(cfg *config.Repo) coder.Options {
	o := a.opts
	o.Blocked = append([]string{}, cfg.BlockedPaths...)
	o.RunCommands = cfg.RunCommands && a.allowChecks
	o.CheckCommands = nil
	for _, c := range cfg.Checks {
		o.CheckCommands = append(o.CheckCommands, c.Run)
	}
	b := cfg.Role(llm.RoleCoder).Budget()
	o.MaxTokens, o.MaxWall = b.MaxTokens, b.MaxWall
	return o
}

func codeResult(res *coder.Result) *workflow.CodeResult {
	out := &workflow.CodeResult{Summary: res.Summary, Usage: res.Usage, OK: res.OK()}
	for _, it := range res.Items {
		out.Items = append(out.Items, workflow.ItemStatus{Path: it.Path, Status: it.Status, Reason: it.Reason})
	}
	for _, f := range res.Changes.Files {
		out.Changed = append(out.Changed, f.Path)
	}
	last := 0
	for _, c := range res.Checks {
		last = max(last, c.Round)
	}
	for _, c := range res.Checks {
		if c.Round == last {
			out.Checks = append(out.Checks, workflow.Check{Name: c.Name, OK: c.OK, Output: c.Output})
		}
	}
	return out
}

// plannerAgent is workflow.Planner over planner.Planner.
type plannerAgent struct{ models *models }

// Plan asks the planner for a plan of spec, within the repository's
// planner budget.
func (a *plannerAgent) Plan(ctx context.Context, spec *work.Spec, cfg *config.Repo) (*work.Plan, workflow.Spend, error) {
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, workflow.Spend{}, err
	}
	var plan *work.Plan
	u, err := spendOf(model, func(m llm.Model) error {
		p, err := planner.New(m, planner.Options{Budget: cfg.Role(llm.RolePlanner).Budget()})
		if err != nil {
			return err
		}
		plan, err = p.Plan(ctx, spec)
		return err
	})
	return plan, u, err
}

// summaryRefresher is workflow.Summarizer: it builds the summaries index of
// a checkout with the model (summarizer role, with the repository's role
// settings applied like every other stage's) over the store's cache, so
// explorations find every unchanged file already summarised.
type summaryRefresher struct {
	models *models
	cache  summaries.Cache
}

// Refresh summarises changed files of the checkout at dir into the cache.
func (r *summaryRefresher) Refresh(ctx context.Context, dir string, cfg *config.Repo) (workflow.Spend, error) {
	model, err := r.models.forRepo(cfg)
	if err != nil {
		return workflow.Spend{}, err
	}
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return workflow.Spend{}, err // names the workspace already
	}
	defer ws.Close()
	return spendOf(model, func(m llm.Model) error {
		_, err := summaries.Build(ctx, ws, summaries.Options{Model: m, Cache: r.cache})
		return err
	})
}
