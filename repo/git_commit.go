package repo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is a git identity.
type Signature struct {
	Name  string
	Email string
}

// String renders "Name <email>".
func (s Signature) String() string { return fmt.Sprintf("%s <%s>", s.Name, s.Email) }

// NoReplyEmail is GitHub's private commit address for a user, which links
// a Co-authored-by trailer to the account.
func NoReplyEmail(userID int64, login string) string {
	return fmt.Sprintf("%d+%s@users.noreply.github.com", userID, login)
}

// CommitOptions describe a commit.
type CommitOptions struct {
	// Message is the commit message; trailers are appended to it.
	Message string
	// Author is the bot's identity; it is also the committer.
	Author Signature
	// CoAuthors become "Co-authored-by:" trailers (the requester).
	CoAuthors []Signature
	// When is the commit time; zero means now.
	When time.Time
	// Blocked, when set, is asked for every changed path (slash,
	// repo-relative) once the changes are staged; a true answer refuses the
	// whole commit with ErrBlockedPath. Edit-time checks stop the coder's
	// own writes; this stops every other route (check commands, generators,
	// a rename) at the last point before anything leaves the machine.
	Blocked func(path string) bool
}

// Commit stages every change in the worktree (new, modified and deleted
// files, .gitignore honoured) and commits it on the run's branch. The work
// tree is vetted first (vetTree: content only; ErrUnsafeEntry for a link
// leaving it). It returns the new commit's hash, or an error wrapping
// ErrEmptyChange when there is nothing to commit (no commit is made).
func (wt *Worktree) Commit(ctx context.Context, opts CommitOptions) (string, error) {
	if opts.Author.Name == "" || opts.Author.Email == "" {
		return "", errors.New("commit: author name and email are required")
	}
	if strings.TrimSpace(opts.Message) == "" {
		return "", errors.New("commit: message is empty")
	}
	if opts.When.IsZero() {
		opts.When = time.Now()
	}
	msg := commitMessage(opts)
	if err := wt.vetTree(); err != nil {
		return "", fmt.Errorf("commit on %s: %w", wt.Branch, err)
	}
	if wt.Backend == BackendCLI {
		return wt.commitCLI(ctx, msg, opts)
	}
	w, err := wt.repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if w.Excludes, err = gitignore.ReadPatterns(w.Filesystem, nil); err != nil {
		return "", fmt.Errorf("commit: read .gitignore: %w", err)
	}
	if err := w.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return "", fmt.Errorf("commit: stage changes: %w", err)
	}
	if opts.Blocked != nil {
		st, err := w.Status()
		if err != nil {
			return "", fmt.Errorf("commit: status: %w", err)
		}
		var staged []string
		for p, fs := range st {
			if fs.Staging != git.Unmodified && fs.Staging != git.Untracked {
				staged = append(staged, p)
			}
		}
		if err := refuseBlocked(wt.Branch, staged, opts.Blocked); err != nil {
			return "", err
		}
	}
	sig := &object.Signature{Name: opts.Author.Name, Email: opts.Author.Email, When: opts.When}
	h, err := w.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if errors.Is(err, git.ErrEmptyCommit) {
		return "", fmt.Errorf("commit on %s: %w", wt.Branch, ErrEmptyChange)
	}
	if err != nil {
		return "", fmt.Errorf("commit on %s: %w", wt.Branch, err)
	}
	return h.String(), nil
}

// commitCLI is Commit with the git CLI.
func (wt *Worktree) commitCLI(ctx context.Context, msg string, opts CommitOptions) (string, error) {
	git := wt.cli("")
	if _, err := git.run(ctx, "add", "-A"); err != nil {
		return "", fmt.Errorf("commit: stage changes: %w", err)
	}
	res, err := git.run(ctx, "diff", "--cached", "--quiet")
	if err == nil {
		return "", fmt.Errorf("commit on %s: %w", wt.Branch, ErrEmptyChange)
	}
	if res.exitErr == nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if opts.Blocked != nil {
		res, err := git.run(ctx, "diff", "--cached", "--name-only", "--no-renames", "-z")
		if err != nil {
			return "", fmt.Errorf("commit: list staged changes: %w", err)
		}
		if err := refuseBlocked(wt.Branch, strings.Split(strings.TrimRight(res.stdout, "\x00"), "\x00"), opts.Blocked); err != nil {
			return "", err
		}
	}
	date := opts.When.Format(time.RFC3339)
	_, err = git.run(ctx,
		"-c", "user.name="+opts.Author.Name, "-c", "user.email="+opts.Author.Email,
		"commit", "--quiet", "--no-verify", "--author", opts.Author.String(), "--date", date, "-m", msg)
	if err != nil {
		return "", fmt.Errorf("commit on %s: %w", wt.Branch, err)
	}
	return wt.Head()
}

// refuseBlocked fails with ErrBlockedPath naming the staged paths blocked
// refuses, in order.
func refuseBlocked(branch string, staged []string, blocked func(string) bool) error {
	var bad []string
	for _, p := range staged {
		if p != "" && blocked(p) {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("commit on %s: %s: %w", branch, strings.Join(bad, ", "), ErrBlockedPath)
}

// commitMessage appends the Co-authored-by trailers, once each.
func commitMessage(opts CommitOptions) string {
	msg := strings.TrimRight(opts.Message, "\n")
	seen := map[string]bool{strings.ToLower(opts.Author.Email): true}
	var trailers []string
	for _, co := range opts.CoAuthors {
		key := strings.ToLower(co.Email)
		if co.Email == "" || seen[key] {
			continue
		}
		seen[key] = true
		trailers = append(trailers, "Co-authored-by: "+co.String())
	}
	if len(trailers) > 0 {
		msg += "\n\n" + strings.Join(trailers, "\n")
	}
	return msg + "\n"
}
