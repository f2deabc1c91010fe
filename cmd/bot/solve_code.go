package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// coderOptions maps a repository's .github/issuesmith.yml onto the coder's
// options: blocked paths, check commands (run only with run_commands), and
// the coder role's token and time budgets for the whole coding run.
func coderOptions(rc *config.Repo) coder.Options {
	role := rc.Role(llm.RoleCoder)
	o := coder.Options{
		Blocked:     rc.BlockedPaths,
		RunCommands: rc.RunCommands,
		MaxTokens:   role.MaxTokens,
		MaxWall:     time.Duration(role.Timeout),
	}
	for _, c := range rc.Checks {
		o.CheckCommands = append(o.CheckCommands, c.Run)
	}
	return o
}

// codeStage is the coding stage of `bot solve`: the coder implements plan in
// the checkout, leaving the change in the working tree. The run's actions,
// retries and checks go to stderr; the PR summary and the diff to stdout
// (unless asJSON, when the caller prints the record holding the result).
func codeStage(ctx context.Context, model llm.Model, ws *repo.Workspace, rc *config.Repo,
	spec *work.Spec, plan *work.Plan, asJSON bool, stdout, stderr io.Writer) (*coder.Result, error) {
	c, err := coder.New(model, coderOptions(rc))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.RepoPath, err)
	}
	fmt.Fprintln(stderr, "solve: coding")
	res, err := c.Implement(ctx, ws, spec, plan)
	if err != nil {
		return nil, err
	}
	fmt.Fprint(stderr, indent("code: ", res.Report()))
	if asJSON {
		return res, nil
	}
	fmt.Fprintf(stdout, "## Change\n\n%s\n", res.Summary)
	if !res.Changes.Empty() {
		fmt.Fprintf(stdout, "```diff\n%s```\n", res.Changes.Diff)
	}
	return res, nil
}

// indent prefixes every line of s.
func indent(prefix, s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}
