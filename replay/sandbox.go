package replay

import (
	"context"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// NewTestRunner returns the test runner for this host: under bubblewrap
// when it works, with internal/sandbox's one policy (caches, when given:
// the modules downloaded by the bot and read-only inside, the build cache
// the repository's own; no network, an instance's setup command reaching
// SetupHosts through the egress proxy), otherwise with the scrubbed environment and a process-group
// kill; why is the second value.
func NewTestRunner(_ context.Context, timeout time.Duration, hide []string, caches *sandbox.Caches) (*TestRunner, string) {
	r := &TestRunner{Timeout: timeout, Policy: sandbox.Policy{Hide: hide, Caches: caches}}
	if err := sandbox.Check(); err != nil {
		return r, "tests run without a sandbox (scrubbed environment, process-group kill): " + err.Error()
	}
	r.Sandbox = true
	how := "tests run under bubblewrap (no network; limits: " + sandbox.Mechanism() + ")"
	if caches != nil {
		how += "; modules downloaded first into " + caches.ModCache() + ", read-only inside; a build cache per repository"
	}
	return r, how
}

// prefetch downloads a Go module's dependencies (outside the sandbox, by
// the bot, into the read-only module cache) so a download failure is named
// before the tests run.
func (r *TestRunner) prefetch(ctx context.Context, dir string) error {
	if !r.Sandbox || r.Policy.Caches == nil {
		return nil
	}
	release, err := r.Policy.Caches.DownloadModulesAllowed(ctx, dir, sandbox.DefaultModuleHosts, committedModules(ctx, dir))
	release()
	return err
}

// committedModules are the module versions the clone's base commit
// (replay-base: what the repository committed, read from git, not from the
// tree the solver and the tests wrote) names in its go.mod and go.sum.
func committedModules(ctx context.Context, dir string) []string {
	goMod, _ := git(ctx, dir, nil, "show", "--no-textconv", "replay-base:go.mod")
	goSum, _ := git(ctx, dir, nil, "show", "--no-textconv", "replay-base:go.sum")
	return sandbox.CommittedModules(goMod, goSum)
}

// RepoKey names an instance's repository for its sandbox caches: the
// instance's own "repo" field (the data set's record), never anything in
// the clone — a clone's git directory is written by the tests it ran.
// Instances of one repository share a build cache; two repositories never
// do.
func RepoKey(in *Instance) string {
	if in == nil || in.Repo == "" {
		return "replay/unknown"
	}
	return "replay/" + strings.ToLower(in.Repo)
}
