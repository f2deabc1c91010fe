// Package ghport is the workflow's GitHub adapter: it implements
// workflow.GitHub (every role of ports.go) over *ghapp.Client,
// workflow.Installations over *ghapp.App and workflow.Forks over
// *ghapp.Forks. Its one job is translation: go-github's values become the
// workflow's (workflow.Comment, PullRequest, DiffComment, Repository,
// Issue, CheckRun, Annotation, Fork), workflow.NewPR becomes ghapp's, and
// every error is returned with its text and chain kept and, where the
// workflow acts on it, the workflow's sentinel added (ghapp.ErrNotFound
// also answers workflow.ErrNotFound; likewise ErrNoAccess, ErrNotInstalled
// and ErrNotAFork) or wrapped in a *workflow.RateLimitError carrying when
// GitHub allows the call again (ghapp.RateLimitOf: ghapp's one rate-limit
// rule, go-github's own rate-limit errors included). A call the workflow
// marked workflow.Reserved (its progress comment) reaches ghapp marked
// ghapp.WithReserve, so it may use the requests the installation's client
// keeps in reserve when it paces.
//
// It decides nothing: no retries, no policy, no GitHub call of its own
// beyond the one it adapts. Of the project it imports only workflow, ghapp
// and internal/ghtext (the comment markers both speak); the workflow's
// core imports neither ghapp nor go-github, and ghapp never imports
// workflow. server wires it (Installations, Forks).
package ghport
