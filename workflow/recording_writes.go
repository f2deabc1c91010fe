package workflow

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	srec "github.com/issuesmith/issuesmith/session"
)

// recordingGitHub records the bot's writes on GitHub (every comment but the
// progress comment's edits, the pull request, review replies, mark ready)
// in the session the call's context carries, if any.
type recordingGitHub struct {
	GitHub
	forge string // the forge's name in the record ("" for GitHub)
}

func (g recordingGitHub) UpsertComment(ctx context.Context, owner, repo string, number int, marker ghtext.Marker, body string) (*Comment, error) {
	ic, err := g.GitHub.UpsertComment(ctx, owner, repo, number, marker, body)
	if err == nil && marker.Kind != kindProgress {
		srec.From(ctx).GitHub(ctx, srec.GitHubWrite{Forge: g.forge, What: marker.Kind + " comment", Target: fmt.Sprintf("#%d", number),
			URL: ic.HTMLURL, Text: body})
	}
	return ic, err
}

func (g recordingGitHub) CreatePR(ctx context.Context, owner, repo string, p NewPR) (*PullRequest, error) {
	pr, err := g.GitHub.CreatePR(ctx, owner, repo, p)
	if err == nil {
		srec.From(ctx).GitHub(ctx, srec.GitHubWrite{Forge: g.forge, What: "pull request", Target: fmt.Sprintf("#%d", pr.Number),
			URL: pr.HTMLURL, Text: p.Title})
	}
	return pr, err
}

func (g recordingGitHub) ReplyToReviewComment(ctx context.Context, owner, repo string, number int, id int64, body string) (*DiffComment, error) {
	c, err := g.GitHub.ReplyToReviewComment(ctx, owner, repo, number, id, body)
	if err == nil {
		srec.From(ctx).GitHub(ctx, srec.GitHubWrite{Forge: g.forge, What: "review reply", Target: fmt.Sprintf("#%d comment %d", number, id),
			URL: c.HTMLURL, Text: body})
	}
	return c, err
}

func (g recordingGitHub) MarkReady(ctx context.Context, owner, repo string, number int) error {
	err := g.GitHub.MarkReady(ctx, owner, repo, number)
	if err == nil {
		srec.From(ctx).GitHub(ctx, srec.GitHubWrite{Forge: g.forge, What: "ready for review", Target: fmt.Sprintf("#%d", number)})
	}
	return err
}

// recordingGit records each commit pushed from its worktrees in the
// session the push's context carries, if any.
type recordingGit struct{ Git }

func (g recordingGit) Checkout(ctx context.Context, r RepoRef, branch string) (Worktree, error) {
	wt, err := g.Git.Checkout(ctx, r, branch)
	if err != nil {
		return nil, err
	}
	return &recordingWorktree{Worktree: wt, branch: branch}, nil
}

type recordingWorktree struct {
	Worktree
	branch   string
	sha, msg string // the last commit made, pushed by Push
}

func (w *recordingWorktree) Commit(ctx context.Context, message string, coAuthors ...string) (string, bool, error) {
	sha, changed, err := w.Worktree.Commit(ctx, message, coAuthors...)
	if err == nil && changed {
		w.sha, w.msg = sha, message
	}
	return sha, changed, err
}

func (w *recordingWorktree) Push(ctx context.Context) error {
	err := w.Worktree.Push(ctx)
	if err == nil && w.sha != "" {
		srec.From(ctx).Commit(ctx, srec.Commit{SHA: w.sha, Branch: w.branch, Message: w.msg})
		w.sha = ""
	}
	return err
}

// ReviewLines passes the forge's ReviewLines on (a read: nothing to
// record); a forge without it (GitHub) has none to give.
func (g recordingGitHub) ReviewLines(ctx context.Context, owner, repo string, number int, author string) ([]DiffComment, error) {
	if rl, ok := g.GitHub.(ReviewLines); ok {
		return rl.ReviewLines(ctx, owner, repo, number, author)
	}
	return nil, nil
}
