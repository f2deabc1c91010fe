package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// prEnded says how the run's pull request ended ("merged", "closed"), or
// "" while it is open. A revise on an ended PR would push to a branch
// nobody reads (or bring back one GitHub deleted after the merge).
func (s *runJob) prEnded(ctx context.Context) (string, error) {
	o := s.run
	pr, err := s.gh.FindPR(ctx, o.Owner, o.Repo, s.prHead())
	if errors.Is(err, ErrNotFound) {
		return "closed", nil
	}
	if err != nil {
		return "", err
	}
	switch {
	case pr.Number == o.PRNumber && pr.State == "open":
		return "", nil
	case pr.Number == o.PRNumber && pr.Merged:
		return "merged", nil
	}
	return "closed", nil // this PR, or a newer one took its branch
}

// declineEnded answers a review request on an ended pull request in its
// thread or conversation, changes nothing, and marks the request done.
func (s *runJob) declineEnded(ctx context.Context, a StageArgs, doneKey, how string) error {
	o := s.run
	text := fmt.Sprintf("This pull request is %s, so I changed nothing. "+
		"To change the code again, comment `/retry` on issue #%d.", how, o.Issue)
	if a.Source == "" {
		marker := ghtext.Marker{Kind: kindReply, Run: runID(o), Version: int(a.CommentID)}
		thread, err := s.gh.ReviewThread(ctx, o.Owner, o.Repo, o.PRNumber, a.CommentID)
		if err != nil {
			return err
		}
		if !hasReply(thread, marker, s.e.botLogins()...) {
			if _, err := s.gh.ReplyToReviewComment(ctx, o.Owner, o.Repo, o.PRNumber, a.CommentID, ghtext.WithMarker(text, marker)); err != nil {
				return fmt.Errorf("reply to review comment %d: %w", a.CommentID, err)
			}
		}
	} else {
		marker := ghtext.Marker{Kind: fmt.Sprintf("%s-%s-%d", kindReply, a.Source, a.CommentID), Run: runID(o)}
		body := fitBody(fmt.Sprintf("> @%s: %s\n\n%s", a.Author, firstLine(a.Body), text))
		if _, err := s.gh.UpsertComment(ctx, o.Owner, o.Repo, o.PRNumber, marker, body); err != nil {
			return fmt.Errorf("reply on pull request #%d: %w", o.PRNumber, err)
		}
	}
	_, err := s.e.d.Store.Checkpoint(ctx, o.ID, doneKey, "")
	return err
}
