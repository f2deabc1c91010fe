// This file only wires subcommands; each lives in its own file (doc.go says
// what the command owns).

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/internal/buildinfo"
)

// exitError carries a process exit code through cobra without printing twice.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks a usage mistake (exit status 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "bot",
		Short:         "issuesmith: from a labelled issue to a pull request",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.AddCommand(
		// Subcommands, one file each: serve, solve, apply, search, summarize, setup, migrate, redeliver, version.
		newApplyCmd(),
		newMigrateCmd(),
		newRedeliverCmd(),
		newSearchCmd(),
		newSummarizeCmd(),
		newServeCmd(),
		newSetupCmd(),
		newSolveCmd(),
		newVersionCmd(),
	)
	return root
}

func main() {
	root := newRootCmd()
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: 2, err: err}
	})
	err := root.Execute()
	if err == nil {
		return
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if isUsage(err) {
		code = 2
	}
	if err.Error() != "" {
		fmt.Fprintln(os.Stderr, "bot:", err)
	}
	os.Exit(code)
}

// isUsage reports whether cobra rejected the command line itself.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
