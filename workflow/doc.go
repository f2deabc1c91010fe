// Package workflow owns an issue's journey as durable River jobs: explore →
// spec → plan → wait for approval → code → push → pull request, revise
// for review comments on the bot's pull request, and the CI fix loop
// (stage_ci.go): when the repository's own CI fails on the pull request,
// a fix round per head commit, with one CI comment on the pull request. It owns the run's one
// progress comment, reads edited spec and plan comments back, and makes sure
// every run ends in a PR, a pushed branch with an explanation, or a comment
// saying plainly why it stopped.
//
// It owns the event vocabulary at its edge (event.go): Event, its kinds, the
// commands and their one parser, and ErrIgnored. The webhook builds an Event
// per delivery and hands it to Engine.Handle, which only records and
// enqueues, after asking GitHub — for an event marked CheckWrite, in the
// intake job — whether the sender may write (ErrNoWrite when not);
// installation removals are events like any other. Every job's
// payload (its args, and the Event an intake job carries) has explicit JSON
// names and a version (payload.go): a job queued by an older release is
// read, one queued by a newer release is refused, never misread.
//
// Every step is idempotent: it finds its own earlier comment, branch or pull
// request (by marker, name or checkpoint) before creating one, so a retried
// or resumed job never duplicates anything. One job works on an issue at a
// time (a lease in the store); later jobs for it wait their turn.
//
// A run moves by decide, save, post (transition.go). Package lifecycle
// decides: a stage, or a person's request, ends in an Outcome (next stage,
// wait for a person, end, stay), and lifecycle.Transition alone changes a
// run's stage and state (through moveRun). One transaction saves it
// (applyTx, and apply for a stage job): the version-checked run, the job
// it queues (the next stage, or the report job that says a wait or an end
// on GitHub with the progress comment the deciding stage rendered), the
// issue's lease and the completion of the job that decided it — for every
// outcome, a failure (fail) and an uninstall included. Only then is
// anything said: a crash after the save still says it, by the report job.
// The completion of the job that carried a request (the intake or label
// job) is handed to its handlers as an argument (tx.go), never in a
// context. Every write of a run row is a compare-and-swap on its version,
// but its usage (tokens and cost), which only ever adds and no save writes.
//
// It must never answer HTTP, verify webhooks or read the environment (that is
// webhook/ and config/), and never put a token in a comment, log or error.
// Agents, git and GitHub are reached only through the small interfaces in
// ports.go, so each stage is tested with the real fakes. The GitHub ports
// speak the workflow's own values (github.go: Comment, PullRequest,
// DiffComment, Issue, CheckRun, Fork, ...) and errors (errors.go:
// ErrNotFound, ErrNoAccess, ErrNotInstalled, ErrNotAFork, and
// RateLimitError); workflow/ghport adapts ghapp's client to them. GitHub's
// rate limit is met in one place (ratelimit.go): a River middleware
// around every job kind turns a RateLimitError into River's snooze until
// the reset — no attempt used, never a failed or discarded job — and a
// stage says once, in the progress comment's "Now:" line, that the run
// waits for GitHub's limit and until when. The progress comment's writes
// are Reserved: the GitHub client, which paces each installation and
// holds every other call back (a RateLimitError, so the job snoozes) once
// its remaining requests are down to a reserve, lets them use that
// reserve, so the waiting line is written before the limit is spent. The
// core — every file of this package — imports neither
// go-github, ghapp nor database/sql (nor webhook or agents, which reach it
// through Handle and its ports, nor a forge's client or adapter: gitea,
// ghport, giteaport): SQL stays in store, and
// internal/archtest checks this rule against `go list`. The comments'
// Markdown (render_*.go: the progress comment, the PR body, the CI
// comment, review replies, spec and plan fitted to GitHub's cap) is
// rendered by pure functions of the run's values; the stages decide and
// post it. A forge is served through the ports alone: the GitHub App
// (ghport) and a Gitea or Forgejo server (giteaport) side by side, each
// installation id bound to its forge (Deps.ForgeOf, forge.go: a repository
// known under one forge ignores another's events), a Gitea label change
// read as the labels now (LabelsSet, labels_set.go) and a commit
// status matched to the bot's pull request by its head. With Deps.Forks
// (push: fork, fork.go) every checkout of a run's branch names the fork and
// the pull request's head is "forkowner:branch".
//
// With Options.Sessions each run keeps a session (package session,
// recording.go): a stage job begins its step (explore, plan, code, each
// revise round, each CI fix round) in the run's session and puts the
// recorder in the stage's context, where the agents' models and tools,
// the GitHub writes and the pushed commits (recording_writes.go) record to
// it; a resumed job appends and never repeats a finished step's events.
// The progress comment links the session page and, once the run ends,
// folds "What I looked at". A session store that fails is logged and
// counted, never a failure of the run. A deleted installation's sessions
// are deleted with it.
// With Deps.Budget (budget.go) every stage runs under a budget.Meter: its
// model calls are checked against the spending limits before they are sent;
// explore, plan and code are refused before any call when a scope is spent;
// a stage stopped by a limit ends the run with the limit's message (the code
// stage having pushed what it validated), and revise and CI rounds answer
// with it. With Options.Limits the loop guard (loopguard.go) gives an issue
// at most LoopMaxPerHour runs, revise rounds and CI rounds an hour; the
// first refusal of a kind in the hour is said in the one loop-guard
// comment of the issue or pull request (sayLoop), later ones are silent.
package workflow
