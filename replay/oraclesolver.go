package replay

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/replay/oracle"
)

// Oracle runs the App's pipeline (Pipeline) against the built-in perfect
// model of package oracle, which knows the instance's gold patch and
// answers through the agents' real prompts and tools; every byte it
// proposes goes through the edit engine, the guards, gofmt/build/vet and
// git. Anything short of resolved is a defect of the bot's plumbing (or a
// limit the oracle states).
type Oracle struct {
	// Coder is the coder's construction, as for Pipeline.
	Coder agents.Coder
	// StageTimeout bounds each agent stage (0: only the run's limit).
	StageTimeout time.Duration
	// Answered, when set, hears what the oracle answered for an instance
	// (oracle.Server.Answers), once its pipeline ended.
	Answered func(id string, answers []string)
	// Faults, with a positive Rate, makes the oracle misbehave at that
	// share of its turns (--faults); each result then holds what the
	// faults cost (Result.Faults).
	Faults oracle.Faults
	// Sessions, when set, records each instance's run (--sessions).
	Sessions SessionOpener
	// Setups are as Pipeline's.
	Setups Setups
}

// Name is "oracle".
func (Oracle) Name() string { return "oracle" }

// Solve reads the gold patch against the clone (still at the base commit),
// serves the oracle on loopback and runs the pipeline with it. What the
// oracle leaves out of the gold patch (a submodule's pointer) is named in
// the solution's Limits.
func (o Oracle) Solve(ctx context.Context, dir string, in *Instance, gold string) (*Solution, error) {
	start := time.Now()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &StageError{Stage: "oracle", Err: err}
	}
	fixes, limits, err := oracle.Fixes(gold, func(p string) ([]byte, error) { return root.ReadFile(p) })
	root.Close()
	if err != nil {
		return nil, &StageError{Stage: "oracle", Err: err}
	}
	var stated []string
	for _, l := range limits {
		stated = append(stated, l.String())
	}
	srv, err := oracle.Start(&oracle.Task{Issue: in.ProblemStatement, Fixes: fixes, Faults: o.Faults})
	if err != nil {
		return nil, &StageError{Stage: "oracle", Err: err}
	}
	defer srv.Close()
	if o.Answered != nil {
		defer func() { o.Answered(in.ID, srv.Answers()) }()
	}
	m, err := config.ParseModel([]string{
		config.EnvPrefix + "MODEL_BASE_URL=" + srv.URL(), config.EnvPrefix + "MODEL_NAME=" + oracle.Model,
		config.EnvPrefix + "MODEL_NO_STREAM=true", config.EnvPrefix + "MODEL_MAX_RETRIES=0",
	})
	if err != nil {
		return nil, &StageError{Stage: "oracle", Err: err}
	}
	prep := time.Since(start).Round(time.Millisecond).Seconds()
	sol, err := (&Pipeline{Model: m, Coder: o.Coder, StageTimeout: o.StageTimeout, Sessions: o.Sessions, Setups: o.Setups}).Solve(ctx, dir, in, "")
	var se *StageError
	if errors.As(err, &se) && sol == nil {
		sol = se.Partial
	}
	if sol != nil {
		sol.Limits = stated
		sol.Stages = append([]StageWall{{Stage: "oracle", Wall: prep}}, sol.Stages...)
		st := srv.Stats()
		sol.Calls = st.Calls
		if o.Faults.Rate > 0 {
			sol.Faults = &st
		}
	}
	return sol, err
}
