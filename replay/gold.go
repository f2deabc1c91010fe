package replay

import (
	"context"
	"time"
)

// Gold applies the instance's gold patch: it tells which instances are
// valid on this machine (the patch applies, the tests build and judge it
// resolved), the denominator of every model's rate.
type Gold struct{}

// Name is "gold".
func (Gold) Name() string { return "gold" }

// Solve applies the gold patch; a patch that does not apply is NotApplied.
func (Gold) Solve(ctx context.Context, dir string, _ *Instance, gold string) (*Solution, error) {
	t := time.Now()
	err := ApplyPatch(ctx, dir, gold)
	sol := &Solution{Stages: []StageWall{{Stage: "gold", Wall: time.Since(t).Round(time.Millisecond).Seconds()}}}
	if err != nil {
		sol.NotApplied = "gold patch does not apply: " + err.Error()
	}
	return sol, nil
}
