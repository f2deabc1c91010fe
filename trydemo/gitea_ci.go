package trydemo

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/gitea/giteatest"
)

// ciFailureLine is the failing job's commit status description on Gitea:
// a status carries no log, its description is the evidence the bot reads
// (the line of ciFailure that says what failed).
const ciFailureLine = "--- FAIL: TestRoundTrip: temp_test.go:24: 15.3 °C there and back = 15.300000000000004"

// ci plays the repository's CI on the pull request as Gitea reports it:
// commit statuses and their status deliveries. The job passes on the base
// and fails on the bot's commit; the bot's fix round pushes a commit, the
// job passes on it, and the bot takes the WIP: prefix off (ready for
// review). It returns the pull request as it then is.
func (g *giteaDemo) ci(ctx context.Context, pr giteatest.Pull) (giteatest.Pull, error) {
	g.fg.SetStatus(owner, name, pr.BaseSHA, person, giteatest.Status{State: "success", Context: ciCheck, Description: "ok"})
	head := pr.HeadSHA
	g.fg.SetStatus(owner, name, head, person, giteatest.Status{State: "failure", Context: ciCheck, Description: ciFailureLine})
	if err := g.deliver(ctx, "status", "status", g.status(head, "failure", ciFailureLine)); err != nil {
		return pr, err
	}
	g.step(fmt.Sprintf("CI (%s) failed on %s: Gitea sent its status, the description saying what failed", ciCheck, head[:7]))
	if err := g.wait(ctx, "the CI fix round", func() bool { return strings.Contains(g.botComment(pr.Number, "ci"), "→ pushed") }); err != nil {
		return pr, err
	}
	fixed := g.git.Head(g.s, owner+"/"+name, pr.Head)
	g.step(fmt.Sprintf("the bot read the status and pushed %s (Fix CI: %s)", fixed[:7], ciCheck))
	g.fg.SetStatus(owner, name, fixed, person, giteatest.Status{State: "success", Context: ciCheck, Description: "ok"})
	if err := g.deliver(ctx, "status", "status", g.status(fixed, "success", "ok")); err != nil {
		return pr, err
	}
	if err := g.wait(ctx, "CI to pass", func() bool {
		return strings.Contains(g.botComment(pr.Number, "ci"), "CI passed") && !g.fg.Pulls(owner, name)[0].Draft
	}); err != nil {
		return pr, err
	}
	pr = g.fg.Pulls(owner, name)[0]
	g.step(fmt.Sprintf("CI passed on %s; the bot took WIP: off pull request #%d: ready for review", fixed[:7], pr.Number))
	return pr, nil
}
