// Package replay backtests the bot on real fixed issues of real
// repositories (`bot replay`): SWE-bench-style instances are read from JSON
// lines, each gets a fresh clone of its repository at the base commit, a
// Solver changes it (the gold patch, or the App's real pipeline through
// agents.Local with a configured model or the oracle), the instance's test
// patch is applied and its test command runs under a time limit; every
// FAIL_TO_PASS and PASS_TO_PASS test is judged by name from `go test -json`
// events (or `-v` lines), or from pytest's `-rA` summary or `-v` lines. One
// result line per instance is appended as it finishes, so an interrupted
// run resumes where it stopped; Summary renders the table. TreeVerdicts
// (--verdicts) judges a tree already tested by the same command from that
// run; a SessionOpener (--sessions) keeps each run's session.
//
// A repository's setup (Setups, setup.go: --setup files written as a
// .github/issuesmith.yml, else the instance's own committed one, read from
// git at replay-base) comes before the tests: its Debian packages must be
// on the host (replay installs nothing; a missing one fails the setup stage
// naming it), its commands run in the sandbox with SetupHosts, in a
// virtual environment of the repository's cache when those allow a
// package index, and the tests then run in it too.
//
// replay reads the repositories it is given and writes only inside each
// instance's own temporary clone, the results file and the verdicts file. Test commands run
// under internal/sandbox when bubblewrap works here, otherwise with the
// scrubbed environment (internal/procenv) and a process-group kill.
//
// The oracle model lives in replay/oracle; cmd/bot/replay.go is the command.
package replay
