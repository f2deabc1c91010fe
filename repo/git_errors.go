package repo

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Sentinels for git outcomes the workflow handles. Errors returned by Cache
// and Worktree wrap them; test with errors.Is, or errors.As with *PushError
// for details.
var (
	// ErrEmptyChange reports a commit with nothing to commit. No commit is
	// made.
	ErrEmptyChange = errors.New("no changes to commit")
	// ErrBlockedPath reports a commit refused because a staged change
	// touches a path CommitOptions.Blocked forbids. No commit is made.
	ErrBlockedPath = errors.New("change touches a blocked path")
	// ErrBranchMoved reports that the remote branch changed after this run
	// fetched it (someone pushed to it): fetch and redo, or give up.
	ErrBranchMoved = errors.New("remote branch moved since it was fetched")
	// ErrNonFastForward reports that the pushed commit does not descend from
	// the remote branch tip; pushing needs Force.
	ErrNonFastForward = errors.New("push is not a fast-forward")
	// ErrPushRejected reports that the server refused the push (a hook, a
	// protected branch, a policy).
	ErrPushRejected = errors.New("push rejected by the remote")
	// ErrAuth reports a missing, expired or insufficient access token.
	ErrAuth = errors.New("git authentication failed")
	// ErrRefNotFound reports a base ref that the remote does not have.
	ErrRefNotFound = errors.New("ref not found")
)

// PushError describes a failed push. It wraps one of ErrBranchMoved,
// ErrNonFastForward, ErrPushRejected or ErrAuth. Its text never holds the
// token.
type PushError struct {
	Kind     error  // one of the sentinels above
	Branch   string // the branch pushed, without refs/heads/
	Expected string // remote tip this run expected ("" when it expected no branch)
	Actual   string // remote tip found ("" when the branch does not exist)
	Reason   string // the server's or git's message, redacted
}

// Error implements error.
func (e *PushError) Error() string {
	s := fmt.Sprintf("push %s: %v", e.Branch, e.Kind)
	switch {
	case e.Expected != e.Actual:
		s += fmt.Sprintf(" (expected %s, found %s)", short(e.Expected), short(e.Actual))
	case e.Actual != "":
		s += fmt.Sprintf(" (remote at %s)", short(e.Actual))
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap returns the sentinel kind.
func (e *PushError) Unwrap() error { return e.Kind }

// short abbreviates a commit hash for messages; "" reads "none".
func short(h string) string {
	switch {
	case h == "":
		return "none"
	case len(h) > 12:
		return h[:12]
	default:
		return h
	}
}

// cliAuthErr wraps a git CLI failure in ErrAuth when git's own words say
// the credentials were missing or refused. It matches whole messages, never
// bare status digits: a repository named svc-403, a port 40171 or a hook's
// text must not read as a login failure.
func cliAuthErr(stderr string, err error) error {
	if authFailure(stderr) {
		return fmt.Errorf("%w: %v", ErrAuth, err)
	}
	return err
}

// authFailure reports whether git's stderr says authentication failed:
// git's "Authentication failed for '<url>'" (a 401 after sending
// credentials), "could not read Username/Password" and "terminal prompts
// disabled" (a 401 with none to send), "The requested URL returned error:
// 401/403" (git's HTTP error line) and GitHub's "Invalid username or
// password" and "Permission to <repo> denied to <user>".
func authFailure(stderr string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "fatal: Authentication failed for "),
			strings.HasPrefix(l, "fatal: could not read Username for "),
			strings.HasPrefix(l, "fatal: could not read Password for "),
			strings.HasSuffix(l, ": terminal prompts disabled"),
			httpAuthStatus.MatchString(l),
			l == "remote: Invalid username or password.",
			githubDenied.MatchString(l):
			return true
		}
	}
	return false
}

var (
	// httpAuthStatus is git's line for an HTTP 401/403 answer (http.c).
	httpAuthStatus = regexp.MustCompile(`^(fatal|error): unable to access '[^']*': The requested URL returned error: 40[13]$`)
	// githubDenied is GitHub's remote line for a token without write access.
	githubDenied = regexp.MustCompile(`^remote: Permission to \S+ denied to \S+\.$`)
)
