package giteaport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/workflow"
)

// wipPrefix marks a draft pull request on Gitea (one of its default
// WORK_IN_PROGRESS_PREFIXES).
const wipPrefix = "WIP: "

// isDraft reports whether title carries one of Gitea's default
// work-in-progress prefixes.
func isDraft(title string) bool {
	t := strings.ToUpper(strings.TrimSpace(title))
	return strings.HasPrefix(t, "WIP:") || strings.HasPrefix(t, "[WIP]")
}

func errorsIsNotFound(err error) bool { return errors.Is(err, gitea.ErrNotFound) }

// gone is err from an issue's comment route, or — when err is a 5xx and
// the issue is not found — the issue's 404: Gitea 1.26 answers the comment
// routes of a deleted issue with 500 (its lookup's error is not told
// apart), which the workflow would otherwise take for a passing fault and
// retry.
func (g Client) gone(ctx context.Context, owner, repo string, number int, err error) error {
	var ge *gitea.Error
	if !errors.As(err, &ge) || ge.Status < 500 {
		return err
	}
	if _, ierr := g.c.Issue(ctx, owner, repo, number); errors.Is(ierr, gitea.ErrNotFound) {
		return fmt.Errorf("%s/%s#%d is gone (its comments answered %d): %w", owner, repo, number, ge.Status, ierr)
	}
	return err
}

// GetReviewComment: the bot never hears of a Gitea review comment by id
// (review deliveries carry none), so there is none to read.
func (g Client) GetReviewComment(_ context.Context, owner, repo string, id int64) (*workflow.DiffComment, error) {
	return nil, fmt.Errorf("review comment %d of %s/%s: Gitea's review deliveries name no comment: %w", id, owner, repo, workflow.ErrNotFound)
}

// ReviewThread: see GetReviewComment.
func (g Client) ReviewThread(_ context.Context, owner, repo string, number int, id int64) ([]workflow.DiffComment, error) {
	return nil, fmt.Errorf("review thread %d of %s/%s#%d: Gitea's review deliveries name no comment: %w", id, owner, repo, number, workflow.ErrNotFound)
}

// ReplyToReviewComment answers in the pull request's conversation (Gitea
// 1.26 has no reply in a review thread).
func (g Client) ReplyToReviewComment(ctx context.Context, owner, repo string, number int, id int64, body string) (*workflow.DiffComment, error) {
	c, err := g.c.CreateComment(ctx, owner, repo, number, body)
	if err != nil {
		return nil, Err(g.gone(ctx, owner, repo, number, err))
	}
	return &workflow.DiffComment{Body: c.Body, HTMLURL: c.HTMLURL, Author: c.User.Login, AuthorIsBot: g.byBot(c.User)}, nil
}

func (g Client) GetPR(ctx context.Context, owner, repo string, number int) (*workflow.PullRequest, error) {
	pr, err := g.c.PullRequest(ctx, owner, repo, number)
	if err != nil {
		return nil, Err(err)
	}
	return pullRequest(pr), nil
}

// CheckRuns are the commit's statuses as checks: pending is running,
// success passed, failure and error failed, warning neutral, skipped
// skipped.
func (g Client) CheckRuns(ctx context.Context, owner, repo, ref string) ([]workflow.CheckRun, error) {
	st, err := g.c.CombinedStatus(ctx, owner, repo, ref)
	if err != nil {
		return nil, Err(err)
	}
	var out []workflow.CheckRun
	for _, s := range st.Statuses {
		c := workflow.CheckRun{ID: s.ID, Name: s.Context, Status: "completed", Title: s.Description, Summary: s.Description,
			Text: s.TargetURL}
		switch s.State {
		case "pending", "":
			c.Status = "in_progress"
		case "success":
			c.Conclusion = "success"
		case "warning":
			c.Conclusion = "neutral"
		case "skipped": // Gitea 1.26's state for a job its condition skipped
			c.Conclusion = "skipped"
		default: // failure, error
			c.Conclusion = "failure"
		}
		out = append(out, c)
	}
	return out, nil
}

// CheckRunAnnotations: a commit status has none.
func (g Client) CheckRunAnnotations(context.Context, string, string, int64) ([]workflow.Annotation, error) {
	return nil, nil
}

func (g Client) JobLog(ctx context.Context, owner, repo string, jobID int64) (string, error) {
	s, err := g.c.JobLog(ctx, owner, repo, jobID)
	return s, Err(err)
}

// MarkReady removes the work-in-progress prefix from the title.
func (g Client) MarkReady(ctx context.Context, owner, repo string, number int) error {
	pr, err := g.c.PullRequest(ctx, owner, repo, number)
	if err != nil {
		return Err(err)
	}
	if !isDraft(pr.Title) {
		return nil
	}
	title := strings.TrimSpace(pr.Title)
	for _, p := range []string{"WIP:", "[WIP]"} {
		if len(title) >= len(p) && strings.EqualFold(title[:len(p)], p) {
			title = strings.TrimSpace(title[len(p):])
			break
		}
	}
	_, err = g.c.EditPullRequest(ctx, owner, repo, number, gitea.EditPullRequest{Title: &title})
	return Err(err)
}

func comment(c *gitea.Comment) *workflow.Comment {
	return &workflow.Comment{ID: c.ID, Body: c.Body, HTMLURL: c.HTMLURL}
}

func pullRequest(p *gitea.PullRequest) *workflow.PullRequest {
	base := p.Base.SHA // the base branch's commit, as GitHub's base.sha
	if base == "" {
		base = p.MergeBase
	}
	return &workflow.PullRequest{Number: p.Number, State: p.State, Merged: p.Merged, Draft: p.Draft || isDraft(p.Title),
		HTMLURL: p.HTMLURL, HeadSHA: p.Head.SHA, BaseSHA: base}
}

// ReviewLines are the line comments of author's newest submitted review of
// pull request number (Gitea's review delivery names none). A review
// comment's position is its line on the new side; original_position on
// the old side.
func (g Client) ReviewLines(ctx context.Context, owner, repo string, number int, author string) ([]workflow.DiffComment, error) {
	rs, err := g.c.Reviews(ctx, owner, repo, number)
	if err != nil {
		return nil, Err(err)
	}
	var newest *gitea.Review
	for i := range rs {
		r := &rs[i]
		if !strings.EqualFold(r.User.Login, author) || r.State == "REQUEST_REVIEW" || r.State == "PENDING" {
			continue
		}
		if newest == nil || r.ID > newest.ID {
			newest = r
		}
	}
	if newest == nil {
		return nil, nil
	}
	cs, err := g.c.ReviewComments(ctx, owner, repo, number, newest.ID)
	if err != nil {
		return nil, Err(err)
	}
	var out []workflow.DiffComment
	for _, c := range cs {
		out = append(out, workflow.DiffComment{Path: c.Path, Line: c.Position, OriginalLine: c.OriginalPosition,
			DiffHunk: c.DiffHunk, Body: c.Body, HTMLURL: c.HTMLURL, Author: c.User.Login, AuthorIsBot: g.byBot(c.User)})
	}
	return out, nil
}
