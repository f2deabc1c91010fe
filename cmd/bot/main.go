// This file wires the subcommands and holds what several share; each lives
// in its own file (doc.go says what the command owns).

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/buildinfo"
)

// exitError carries a process exit code through cobra without printing twice.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Text shared by the commands' help.
const (
	// issueFileFormat is the one format of --issue files (search, solve).
	issueFileFormat = `Markdown: first line the title, "# title" or plain, then the body`
	// exitCodes is what every command's exit status means.
	exitCodes = "Exit status: 0 done; 1 the work failed (model, git, database, network); " +
		"2 the command line is wrong (unknown or missing flag, --repo not a directory, --issue unreadable or empty)."
)

// repoDir checks that a --repo argument is a directory (exit status 2
// otherwise, like any other command-line mistake).
func repoDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageErr("--repo %s: not a directory", dir)
	}
	return nil
}

// settingsDB is the database a local command uses without --database: the
// one the settings name (config.Local.DB: ISSUESMITH_DATABASE_URL, also from
// ISSUESMITH_CONFIG_FILE, else the default in the state directory).
func settingsDB(environ []string) (string, error) {
	local, err := config.ParseLocal(environ)
	if err != nil {
		return "", err
	}
	return local.DB()
}

// usageErr marks a usage mistake (exit status 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "bot",
		Short: "issuesmith: from a labelled issue to a pull request",
		Long: "issuesmith: from a labelled issue to a pull request. bot serve runs the GitHub App; the local tools\n" +
			"(apply, search, summarize, solve) run the same code on a checkout without GitHub; bot try shows the\n" +
			"whole flow on a sample repository with a scripted model, without a key or GitHub.\n" + exitCodes,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.AddCommand(
		// Subcommands, one file each: serve, solve, apply, search, summarize, setup, migrate, redeliver, replay, sessions,
		// try, usage, version.
		newApplyCmd(),
		newMigrateCmd(),
		newRedeliverCmd(),
		newSearchCmd(),
		newSummarizeCmd(),
		newServeCmd(),
		newSessionsCmd(),
		newSetupCmd(),
		newSolveCmd(),
		newTryCmd(),
		newUsageCmd(),
		newReplayCmd(),
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
