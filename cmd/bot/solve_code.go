package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
)

// printCode prints the coding stage of `bot solve`: the run's actions,
// retries and checks to stderr; the PR summary and the diff to stdout
// (unless asJSON, when the caller prints the record holding the result).
func printCode(res *coder.Result, asJSON bool, stdout, stderr io.Writer) {
	fmt.Fprint(stderr, indent("code: ", res.Report()))
	if asJSON {
		return
	}
	fmt.Fprintf(stdout, "## Change\n\n%s\n", res.Summary)
	if !res.Changes.Empty() {
		fmt.Fprintf(stdout, "```diff\n%s```\n", res.Changes.Diff)
	}
}

// codeFailed is the error of a coding stage that wrote nothing: every item
// failed or was blocked (none done), so the run failed whatever the spec and
// plan were. Each failed item's reason is named (a model's failure is said
// there as the coder saw it).
func codeFailed(res *coder.Result) error {
	if res == nil || len(res.Items) == 0 {
		return nil
	}
	var why []string
	for _, it := range res.Items {
		switch it.Status {
		case coder.ItemDone:
			return nil
		case coder.ItemFailed, coder.ItemBlocked:
			why = append(why, fmt.Sprintf("%s: %s", it.Path, it.Reason))
		}
	}
	if len(why) == 0 {
		return nil // every item skipped: nothing was needed
	}
	return fmt.Errorf("every item of the plan failed, nothing was written: %s", strings.Join(why, "; "))
}

// indent prefixes every line of s.
func indent(prefix, s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// solveCoder is the coder of `bot solve`: the construction `bot serve` uses
// (server.Coder), on the user's own checkout, where the repository's
// run_commands is the user's own choice to run.
func solveCoder() agents.Coder {
	c := agents.Coder{AllowChecks: true}
	c.Options.Sandbox.Repo = solveCacheKey
	return c
}

// solveCacheKey, when not "", names the repository whose sandbox caches
// the checks use instead of the checkout's own (sandbox.RepoKey of its
// path). Only the tests set it: their many temporary copies of one module
// then share one build cache, and the standard library is compiled once.
var solveCacheKey string
