package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/preagent"
)

// reviseRecord is kept once a review comment's commit is pushed.
type reviseRecord struct {
	SHA     string `json:"sha"`
	Changed bool   `json:"changed"`
	Summary string `json:"summary"`
	Failure string `json:"failure,omitempty"`
}

// revise addresses one review comment on the run's pull request: the coder
// gets the comment's file, lines and thread; the result is a new commit on
// the same branch and a reply in the thread. Jobs for one issue run one at a
// time (the lease), in the order they were queued.
func (s *session) revise(ctx context.Context, commentID int64) error {
	st := s.e.d.Store
	doneKey := fmt.Sprintf("revise.%d", commentID)
	if _, ok, err := st.StepResult(ctx, s.run.ID, doneKey); err != nil || ok {
		return err
	}
	if waiting, err := s.earlierReviewPending(ctx, commentID); err != nil || waiting {
		if err == nil {
			err = river.JobSnooze(s.e.o.LeaseWait) // the earlier comment goes first
		}
		return err
	}
	o := s.run
	rc, err := s.gh.GetReviewComment(ctx, o.Owner, o.Repo, commentID)
	if err != nil {
		return err
	}
	thread, err := s.gh.ReviewThread(ctx, o.Owner, o.Repo, o.PRNumber, commentID)
	if err != nil {
		return err
	}
	rec, err := s.revisePushed(ctx, doneKey+".pushed", rc, thread)
	if err != nil {
		return err
	}
	marker := ghapp.Marker{Kind: kindReply, Run: runID(o), Version: int(commentID)}
	if !hasReply(thread, marker) {
		reply := ghapp.WithMarker(replyText(rec), marker)
		if _, err := s.gh.ReplyToReviewComment(ctx, o.Owner, o.Repo, o.PRNumber, commentID, reply); err != nil {
			return fmt.Errorf("reply to review comment %d: %w", commentID, err)
		}
	}
	if _, err := st.Checkpoint(ctx, o.ID, doneKey, rec.SHA); err != nil {
		return err
	}
	return s.progress(ctx) // the tokens and cost now include this revision
}

// revisePushed runs the coder on the branch and pushes its commit, unless a
// checkpoint says that was done.
func (s *session) revisePushed(ctx context.Context, key string, rc *github.PullRequestComment, thread []*github.PullRequestComment) (*reviseRecord, error) {
	st := s.e.d.Store
	if raw, ok, err := st.StepResult(ctx, s.run.ID, key); err != nil || ok {
		if err != nil {
			return nil, err
		}
		var rec reviseRecord
		return &rec, json.Unmarshal([]byte(raw), &rec)
	}
	wt, err := s.e.d.Git.Checkout(ctx, s.ref, s.run.Branch)
	if err != nil {
		return nil, fmt.Errorf("check out %s: %w", s.run.Branch, err)
	}
	defer wt.Close()
	req := Review{Path: rc.GetPath(), StartLine: rc.GetStartLine(), Line: rc.GetLine(), DiffHunk: rc.GetDiffHunk()}
	if req.Line == 0 {
		req.Line = rc.GetOriginalLine()
	}
	for _, c := range thread {
		req.Thread = append(req.Thread, ThreadComment{Author: c.GetUser().GetLogin(), Body: c.GetBody()})
	}
	if spec, err := s.readSpec(ctx); err == nil {
		req.Spec = spec
	} else {
		req.Spec = &preagent.Spec{}
	}
	rec := &reviseRecord{}
	res, err := s.e.d.Coder.Revise(ctx, wt.Dir(), req, s.cfg)
	if res != nil {
		if uerr := s.addUsage(ctx, llm.RoleCoder, Spend{Usage: res.Usage, Cost: res.Cost}); uerr != nil {
			return nil, uerr
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		rec.Failure = redact(err.Error())
	case len(res.Changed) == 0:
		rec.Failure = "the coder found nothing to change." + "\n" + strings.TrimSpace(res.Summary)
	default:
		sha, changed, err := wt.Commit(ctx, fmt.Sprintf("Address review comment on %s\n\n%s\n", req.Path, firstLine(rc.GetBody())))
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if err := wt.Push(ctx); err != nil {
			return nil, fmt.Errorf("push %s: %w", s.run.Branch, err)
		}
		rec.SHA, rec.Changed, rec.Summary = sha, changed, res.Summary
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	_, err = st.Checkpoint(ctx, s.run.ID, key, string(raw))
	return rec, err
}

// hasReply reports whether the bot already replied to the comment (a
// resumed job must not reply twice).
func hasReply(thread []*github.PullRequestComment, m ghapp.Marker) bool {
	for _, c := range thread {
		if c.GetUser().GetType() != "Bot" {
			continue
		}
		if got, ok := ghapp.ParseMarker(c.GetBody()); ok && got.Kind == m.Kind && got.Run == m.Run && got.Version == m.Version {
			return true
		}
	}
	return false
}

func replyText(rec *reviseRecord) string {
	if rec.Failure != "" {
		return "I could not address this comment: " + rec.Failure
	}
	text := fmt.Sprintf("Done in %s.", rec.SHA)
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		text += "\n\n" + sum
	}
	return text
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// earlierReviewPending reports whether a review comment of this run that
// came before commentID still waits to be handled: comments are handled one
// at a time, in the order they were written.
func (s *session) earlierReviewPending(ctx context.Context, commentID int64) (bool, error) {
	params := river.NewJobListParams().Kinds(StageArgs{}.Kind()).First(1000).States(
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled)
	jobs, err := s.e.queue.Jobs(ctx, params)
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		var a StageArgs
		if json.Unmarshal(j.EncodedArgs, &a) != nil || a.RunID != s.run.ID || a.Stage != StageRevise ||
			a.CommentID == 0 || a.CommentID >= commentID {
			continue
		}
		// River records completions asynchronously: the checkpoint says
		// whether it really is still to do.
		if _, done, err := s.e.d.Store.StepResult(ctx, s.run.ID, fmt.Sprintf("revise.%d", a.CommentID)); err != nil {
			return false, err
		} else if !done {
			return true, nil
		}
	}
	return false, nil
}

// mentionHint is the bot's answer to a mention in the PR conversation.
const mentionHint = "I change code for review comments: open **Files changed**, comment on the line to change " +
	"and mention me there. Each such comment becomes a commit on this branch and a reply in its thread."

// answerMention posts (once per PR, edited in place) how to ask for a change.
func (s *session) answerMention(ctx context.Context) error {
	_, err := s.gh.UpsertComment(ctx, s.run.Owner, s.run.Repo, s.run.PRNumber, ghapp.Marker{Kind: "hint"}, mentionHint)
	if err != nil {
		return fmt.Errorf("answer mention: %w", err)
	}
	return nil
}
