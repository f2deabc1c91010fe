package agents

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
)

// Explorer is workflow.Explorer over preagent.
type Explorer struct {
	Models *Models
	// Cache holds the files' summaries (the store): exploring reads them,
	// it never summarises.
	Cache summaries.Cache
	// Options are the explorer's base options (ExplorerOptions applies
	// the repository's on top).
	Options preagent.Options
}

// Explore builds the summaries index from the cache and runs the explorer
// with the repository's explorer budget and observer setting.
func (a *Explorer) Explore(ctx context.Context, ws *repo.Workspace, it workflow.IssueText, cfg *config.Repo) (*work.Spec, workflow.Spend, error) {
	is := preagent.Issue{Number: it.Number, Title: it.Title, Body: it.Body}
	model, err := a.Models.ForRepo(cfg)
	if err != nil {
		return nil, workflow.Spend{}, err
	}
	var spec *work.Spec
	u, err := spendOf(model, func(m llm.Model) error {
		opts := explorerRecording(ctx, ExplorerOptions(a.Options, cfg))
		res, err := explore(ctx, m, ws, summaries.Options{Cache: a.Cache}, opts, is)
		if err != nil {
			return err
		}
		spec = res.Spec
		return nil
	})
	return spec, u, err
}

// explore indexes src (ws, or ws without some files) and runs the explorer.
// No model builds the index: summaries come from idx's cache (filled by the
// refresh after each push) or from outlines, so exploring never waits for a
// repository-wide summarisation. A run that ends without a spec is an error.
func explore(ctx context.Context, m llm.Model, ws *repo.Workspace, idx summaries.Options, opts preagent.Options,
	is preagent.Issue, exclude ...string) (*preagent.Result, error) {
	ix, err := summaries.Build(ctx, summaries.Without(ws, exclude...), idx)
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", err)
	}
	res, err := preagent.New(m, ws, ix, opts).Explore(ctx, is)
	if err != nil {
		return nil, err
	}
	if res.Spec == nil {
		return nil, fmt.Errorf("the explorer stopped (%s) without a spec", res.Reason)
	}
	return res, nil
}

// Planner is workflow.Planner over planner.Planner.
type Planner struct{ Models *Models }

// Plan asks the planner for a plan of spec, within the repository's
// planner budget and with the repository guidance of the checkout ws
// (the same text bot solve's planner gets).
func (a *Planner) Plan(ctx context.Context, ws *repo.Workspace, spec *work.Spec, cfg *config.Repo) (*work.Plan, workflow.Spend, error) {
	guidance, err := preagent.LoadGuidance(ws, 0)
	if err != nil {
		return nil, workflow.Spend{}, fmt.Errorf("repository guidance: %w", err)
	}
	model, err := a.Models.ForRepo(cfg)
	if err != nil {
		return nil, workflow.Spend{}, err
	}
	var plan *work.Plan
	u, err := spendOf(model, func(m llm.Model) error {
		p, err := planner.New(m, PlannerOptions(cfg, guidance, ws))
		if err != nil {
			return err
		}
		plan, err = p.Plan(ctx, spec)
		return err
	})
	return plan, u, err
}

// Summarizer is workflow.Summarizer: it builds the summaries index of a
// checkout with the model (summarizer role, with the repository's role
// settings applied like every other stage's) over the cache, so
// explorations find every unchanged file already summarised.
type Summarizer struct {
	Models *Models
	Cache  summaries.Cache
}

// Refresh summarises changed files of the checkout ws into the cache.
func (r *Summarizer) Refresh(ctx context.Context, ws *repo.Workspace, cfg *config.Repo) (workflow.Spend, error) {
	model, err := r.Models.ForRepo(cfg)
	if err != nil {
		return workflow.Spend{}, err
	}
	return spendOf(model, func(m llm.Model) error {
		_, err := summaries.Build(ctx, ws, summaries.Options{Model: m, Cache: r.Cache})
		return err
	})
}
