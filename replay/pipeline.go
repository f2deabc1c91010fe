package replay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// Pipeline is the real measurement: the App's stages (explore → spec → plan,
// approved as it is → code with validation) through agents.Local, the code
// path `bot solve` runs, with the configured model and the clone's own
// .github/issuesmith.yml applied as `bot serve` applies them. The gold
// patch is never shown to the model.
type Pipeline struct {
	// Model is the model settings (ISSUESMITH_MODEL_*).
	Model *config.Model
	// Coder is the coder's construction (sandbox policy; the repository's
	// checks run only with AllowChecks).
	Coder agents.Coder
	// StageTimeout bounds each agent stage (0: only the run's limit).
	StageTimeout time.Duration
	// Sessions, when set, records each instance's run (--sessions).
	Sessions SessionOpener
	// Setups (--setup) replace the clone's own setup for the coder's
	// checks, as they do for the tests.
	Setups Setups
}

// Name is the model's name.
func (p *Pipeline) Name() string { return p.Model.Name }

// Solve runs the pipeline on the clone at dir for the instance's problem
// statement. A stage that fails is a *StageError naming it, with what the
// stages before it spent; a spec that asks questions instead of planning
// leaves the clone unchanged (NotApplied says so).
func (p *Pipeline) Solve(ctx context.Context, dir string, in *Instance, _ string) (*Solution, error) {
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	ws.SetRepository(RepoKey(in))
	rcfg, err := agents.RepoConfig(ws)
	if err != nil {
		return nil, &StageError{Stage: "config", Err: err}
	}
	if s, ok := p.Setups.given(in); ok {
		rcfg.Setup = config.Setup{Packages: s.Packages, Commands: s.Commands, IndexURL: s.IndexURL}
	}
	lc, err := p.Model.LLMFor(rcfg)
	if err != nil {
		return nil, &StageError{Stage: "config", Err: err}
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return nil, &StageError{Stage: "config", Err: err}
	}
	var model llm.Model = client
	var rs RunSession
	if p.Sessions != nil {
		if rs, err = p.Sessions(ctx, in); err != nil {
			return nil, &StageError{Stage: "config", Err: err}
		}
		model = rs.Model(client)
	}
	var ledger llm.Ledger
	l := &agents.Local{Model: ledger.Track(in.ID, model), Repo: rcfg, Coder: p.Coder, StageTimeout: p.StageTimeout}
	if rs != nil {
		l.Progress = func(ev work.Event) {
			if ev.Kind == work.EventStage {
				rs.Stage(ctx, ev.Stage)
			}
		}
	}
	out, err := l.Run(ctx, ws, preagent.ParseIssueText(in.ProblemStatement))
	sol := &Solution{}
	if rs != nil {
		sol.SessionBytes = endSession(ctx, rs, out, err)
	}
	if out != nil {
		for _, s := range out.Stages {
			sol.Stages = append(sol.Stages, StageWall{Stage: s.Stage, Wall: s.Wall.Round(time.Millisecond).Seconds()})
		}
		if out.Stopped != "" {
			sol.NotApplied = out.Stopped
		}
	}
	_, total := ledger.Run(in.ID)
	sol.Usage, sol.Cost = total.Usage, total.Cost
	var se *agents.StageError
	if errors.As(err, &se) {
		return nil, &StageError{Stage: se.Stage, Err: se.Err, Partial: sol}
	}
	if err != nil {
		return nil, &StageError{Stage: "pipeline", Err: fmt.Errorf("%w", err), Partial: sol}
	}
	return sol, nil
}

// endSession records the coder's work and ends the session: done, or
// failed with err; it returns the bytes stored (0 when it could not end).
func endSession(ctx context.Context, rs RunSession, out *agents.Outcome, err error) int64 {
	state := "done"
	if err != nil {
		state = "failed"
	}
	if out != nil && out.Code != nil {
		rs.Code(ctx, out.Code)
	}
	n, _ := rs.End(context.WithoutCancel(ctx), state)
	return n
}
