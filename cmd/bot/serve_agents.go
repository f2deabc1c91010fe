package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/workflow"
)

// This file adapts the agents and git to the workflow's small interfaces:
// the workflow hands a worktree directory, these open the Workspace, build
// the summaries index, run the agent and report usage.

// models gives the model client for a repository: the server's, or one
// with the repository's per-role model names (.github/issuesmith.yml
// roles.<role>.model) over the server's endpoint and key.
type models struct {
	base llm.Config
	def  llm.Model
}

func (m *models) forRepo(cfg *config.Repo) (llm.Model, error) {
	o := map[llm.Role]llm.RoleConfig{}
	for role, rc := range cfg.Roles {
		if rc.Model != "" {
			o[llm.Role(role)] = llm.RoleConfig{Model: rc.Model}
		}
	}
	if len(o) == 0 || m.base.BaseURL == "" {
		return m.def, nil
	}
	c, err := llm.NewClient(m.base.Override(o))
	if err != nil {
		return nil, fmt.Errorf("models of .github/issuesmith.yml: %w", err)
	}
	return c, nil
}

// usageOf runs fn with a model that records its calls and returns the sum.
func usageOf(model llm.Model, fn func(m llm.Model) error) (llm.Usage, error) {
	var l llm.Ledger
	err := fn(l.Track("call", model))
	_, total := l.Run("call")
	return total.Usage, err
}

// explorerAgent is workflow.Explorer over preagent.
type explorerAgent struct {
	models *models
	cache  summaries.Cache
	opts   preagent.Options
}

// Explore builds the summaries index from the cache and runs the explorer
// with the repository's explorer budget and observer setting.
func (a *explorerAgent) Explore(ctx context.Context, dir string, is preagent.Issue, cfg *config.Repo) (*preagent.Spec, llm.Usage, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, llm.Usage{}, fmt.Errorf("open workspace: %w", err)
	}
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, llm.Usage{}, err
	}
	var spec *preagent.Spec
	u, err := usageOf(model, func(m llm.Model) error {
		// No model here: summaries come from the cache (filled by the
		// refresh after each push) or from outlines, so exploring never
		// waits for a repository-wide summarisation.
		idx, err := summaries.Build(ctx, ws, summaries.Options{Cache: a.cache})
		if err != nil {
			return fmt.Errorf("summaries: %w", err)
		}
		opts := a.opts
		opts.Budget = cfg.Role(llm.RoleExplorer).Budget()
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
}

// Implement runs the coder over the plan in the worktree at dir.
func (a *coderAgent) Implement(ctx context.Context, dir string, spec *preagent.Spec, plan *planner.Plan, cfg *config.Repo) (*workflow.CodeResult, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, err
	}
	c, err := coder.New(model, a.options(cfg))
	if err != nil {
		return nil, err
	}
	res, err := c.Implement(ctx, ws, spec, plan)
	if err != nil {
		return nil, err
	}
	return codeResult(res), nil
}

// Revise runs the coder on one review comment: the last thread comment is
// the one to address, the earlier ones are context.
func (a *coderAgent) Revise(ctx context.Context, dir string, req workflow.Review, cfg *config.Repo) (*workflow.CodeResult, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, err
	}
	c, err := coder.New(model, a.options(cfg))
	if err != nil {
		return nil, err
	}
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
	res, err := c.Revise(ctx, ws, rr)
	if err != nil {
		return nil, err
	}
	return codeResult(res), nil
}

// options maps the repository's settings onto the coder's.
func (a *coderAgent) options(cfg *config.Repo) coder.Options {
	o := a.opts
	o.Blocked = append([]string{}, cfg.BlockedPaths...)
	o.RunCommands = cfg.RunCommands
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

// gitRepos is workflow.Git over repo.Cache, with installation tokens from
// the App: the token goes to git only, never to the workflow.
type gitRepos struct {
	cache  *repo.Cache
	app    *ghapp.App
	author repo.Signature
	seq    atomic.Int64
}

// Checkout prepares a worktree from the cache: branch "" is a read-only
// checkout of the base; a named branch starts from the remote branch when it
// exists (a resumed run, a revise), else from the base.
func (g *gitRepos) Checkout(ctx context.Context, r workflow.RepoRef, branch string) (workflow.Worktree, error) {
	if r.CloneURL == "" {
		return nil, errors.New("checkout: the repository has no clone URL")
	}
	token, err := g.app.Token(ctx, r.InstallationID)
	if err != nil {
		return nil, err
	}
	reuse := branch != ""
	if branch == "" {
		branch = "issuesmith/read-only" // never pushed
	}
	id := fmt.Sprintf("%s-%d", strings.NewReplacer("/", "-", " ", "-").Replace(r.Job), g.seq.Add(1))
	wt, err := g.cache.Prepare(ctx, repo.PrepareOptions{URL: r.CloneURL, Token: token, Base: r.Base, Branch: branch, RunID: id, Reuse: reuse})
	if err != nil {
		return nil, err
	}
	return &gitWorktree{wt: wt, g: g, inst: r.InstallationID}, nil
}

type gitWorktree struct {
	wt   *repo.Worktree
	g    *gitRepos
	inst int64
}

// Dir, Close, Commit and Push implement workflow.Worktree over repo.Worktree;
// Push fetches a fresh installation token.
func (w *gitWorktree) Dir() string  { return w.wt.Dir }
func (w *gitWorktree) Close() error { return w.wt.Remove() }

func (w *gitWorktree) Commit(ctx context.Context, msg string) (string, bool, error) {
	sha, err := w.wt.Commit(ctx, repo.CommitOptions{Message: msg, Author: w.g.author})
	if errors.Is(err, repo.ErrEmptyChange) {
		head, herr := w.wt.Head()
		return head, false, herr
	}
	return sha, err == nil, err
}

func (w *gitWorktree) Push(ctx context.Context) error {
	token, err := w.g.app.Token(ctx, w.inst)
	if err != nil {
		return err
	}
	return w.wt.Push(ctx, token, repo.PushOptions{})
}

// plannerAgent is workflow.Planner over planner.Planner.
type plannerAgent struct{ models *models }

// Plan asks the planner for a plan of spec.
func (a *plannerAgent) Plan(ctx context.Context, spec *preagent.Spec, cfg *config.Repo) (*planner.Plan, llm.Usage, error) {
	model, err := a.models.forRepo(cfg)
	if err != nil {
		return nil, llm.Usage{}, err
	}
	var plan *planner.Plan
	u, err := usageOf(model, func(m llm.Model) error {
		p, err := planner.New(m, planner.Options{})
		if err != nil {
			return err
		}
		plan, err = p.Plan(ctx, spec)
		return err
	})
	return plan, u, err
}

// summaryRefresher is workflow.Summarizer: it builds the summaries index of
// a checkout with the model (summarizer role) over the store's cache, so
// explorations find every unchanged file already summarised.
type summaryRefresher struct {
	model llm.Model
	cache summaries.Cache
}

// Refresh summarises changed files of the checkout at dir into the cache.
func (r *summaryRefresher) Refresh(ctx context.Context, dir string) (llm.Usage, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return llm.Usage{}, fmt.Errorf("open workspace: %w", err)
	}
	idx, err := summaries.Build(ctx, ws, summaries.Options{Model: r.model, Cache: r.cache})
	if err != nil {
		return llm.Usage{}, err
	}
	return idx.LastStats().Tokens, nil
}
