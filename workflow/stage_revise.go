package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/work"
)

// reviseRecord is kept once a revise request's commit is pushed.
type reviseRecord struct {
	SHA     string   `json:"sha"`
	Changed bool     `json:"changed"`
	Summary string   `json:"summary"`
	Failure string   `json:"failure,omitempty"`
	Files   []string `json:"files,omitempty"`  // paths the commit changed
	Tokens  int64    `json:"tokens,omitempty"` // the coder's, and their cost
	Cost    float64  `json:"cost,omitempty"`
}

// reviseKey is the checkpoint key of the revise request a names.
func reviseKey(a StageArgs) string {
	if a.Source == "" {
		return fmt.Sprintf("revise.%d", a.CommentID) // review comments, as before sources existed
	}
	return fmt.Sprintf("revise.%s.%d", a.Source, a.CommentID)
}

// revise addresses one review request on the run's pull request: a review
// comment on a diff line (its file, lines and thread go to the coder; the
// reply goes in the thread), or a conversation comment or submitted review
// (the PR's changed files and the text go to the coder; the reply goes in
// the conversation). The result is a new commit on the same branch. Jobs for
// one issue run one at a time (the lease), in the order they were queued.
func (s *runJob) revise(ctx context.Context, a StageArgs) error {
	doneKey := reviseKey(a)
	if _, ok, err := s.e.d.Store.StepResult(ctx, s.run.ID, doneKey); err != nil || ok {
		return err
	}
	if how, err := s.prEnded(ctx); err != nil {
		return err
	} else if how != "" {
		return s.declineEnded(ctx, a, doneKey, how)
	}
	var err error
	if a.Source == "" {
		err = s.reviseLine(ctx, a.CommentID, doneKey)
	} else {
		err = s.reviseConversation(ctx, a, doneKey)
	}
	if err != nil {
		return err
	}
	return s.progress(ctx) // the tokens and cost now include this revision
}

// reviseLine addresses a review comment on a line of the diff.
func (s *runJob) reviseLine(ctx context.Context, commentID int64, doneKey string) error {
	o := s.run
	rc, err := s.gh.GetReviewComment(ctx, o.Owner, o.Repo, commentID)
	if err != nil {
		return err
	}
	thread, err := s.gh.ReviewThread(ctx, o.Owner, o.Repo, o.PRNumber, commentID)
	if err != nil {
		return err
	}
	req := Review{Path: rc.Path, StartLine: rc.StartLine, Line: rc.Line, DiffHunk: rc.DiffHunk}
	if req.Line == 0 {
		req.Line = rc.OriginalLine
	}
	for _, c := range thread {
		req.Thread = append(req.Thread, ThreadComment{Author: c.Author, Body: c.Body})
	}
	msg := fmt.Sprintf("Address review comment on %s\n\n%s\n", req.Path, firstLine(rc.Body))
	rec, err := s.revisePushed(ctx, doneKey+".pushed", req, msg, rc.Author, doneKey)
	if err != nil {
		return err
	}
	marker := ghtext.Marker{Kind: kindReply, Run: runID(o), Version: int(commentID)}
	if !hasReply(thread, marker, s.e.botLogins()...) {
		reply := ghtext.WithMarker(fitBody(replyText(rec)), marker)
		if _, err := s.gh.ReplyToReviewComment(ctx, o.Owner, o.Repo, o.PRNumber, commentID, reply); err != nil {
			return fmt.Errorf("reply to review comment %d: %w", commentID, err)
		}
	}
	_, err = s.e.d.Store.Checkpoint(ctx, o.ID, doneKey, rec.SHA)
	return err
}

// reviseConversation addresses a PR conversation comment or a submitted
// review: no file or line, so the coder gets the PR's changed files. The
// reply is a conversation comment of its own (found by marker on a retry).
func (s *runJob) reviseConversation(ctx context.Context, a StageArgs, doneKey string) error {
	o := s.run
	files, err := s.prFiles(ctx)
	if err != nil {
		return err
	}
	req := Review{Thread: []ThreadComment{{Author: a.Author, Body: a.Body}}, Files: files}
	what := "comment"
	if a.Source == SourceReview {
		what = "review"
	}
	said := a.Body
	if a.ReadLines {
		lines, err := s.reviewLines(ctx, a)
		if err != nil {
			return err
		}
		if !s.e.mentioned(a.Body) && !slices.ContainsFunc(lines, func(c ThreadComment) bool { return s.e.mentioned(c.Body) }) {
			_, err := s.e.d.Store.Checkpoint(ctx, o.ID, doneKey, "")
			return err // the review asks the bot nothing
		}
		req.Thread = append(req.Thread, lines...)
		if strings.TrimSpace(said) == "" && len(lines) > 0 {
			said = lines[0].Body
		}
	}
	msg := fmt.Sprintf("Address %s on the pull request\n\n%s\n", what, firstLine(said))
	rec, err := s.revisePushed(ctx, doneKey+".pushed", req, msg, a.Author, doneKey)
	if err != nil {
		return err
	}
	marker := ghtext.Marker{Kind: fmt.Sprintf("%s-%s-%d", kindReply, a.Source, a.CommentID), Run: runID(o)}
	body := fitBody(fmt.Sprintf("> @%s: %s\n\n%s", a.Author, firstLine(said), replyText(rec)))
	if _, err := s.gh.UpsertComment(ctx, o.Owner, o.Repo, o.PRNumber, marker, body); err != nil {
		return fmt.Errorf("reply to the %s: %w", what, err)
	}
	_, err = s.e.d.Store.Checkpoint(ctx, o.ID, doneKey, rec.SHA)
	return err
}

// reviewLines are the line comments of the review a (read from the forge:
// ReviewLines), each as "path line N: text" in the thread the coder gets.
func (s *runJob) reviewLines(ctx context.Context, a StageArgs) ([]ThreadComment, error) {
	rl, ok := s.gh.(ReviewLines)
	if !ok {
		return nil, nil
	}
	cs, err := rl.ReviewLines(ctx, s.run.Owner, s.run.Repo, s.run.PRNumber, a.Author)
	if err != nil {
		return nil, fmt.Errorf("read the review's line comments: %w", err)
	}
	var out []ThreadComment
	for _, c := range cs {
		line := c.Line
		if line == 0 {
			line = c.OriginalLine
		}
		out = append(out, ThreadComment{Author: c.Author, Body: fmt.Sprintf("On %s line %d: %s", c.Path, line, c.Body)})
	}
	return out, nil
}

// prFiles are the pull request's changed files: the items the code stage
// pushed (done), then the files later revisions changed, in that order.
func (s *runJob) prFiles(ctx context.Context) ([]string, error) {
	raw, ok, err := s.e.d.Store.StepResult(ctx, s.run.ID, stepPushed)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, permanent(fmt.Errorf("the pull request's changes are unknown (no push recorded for run %d)", s.run.ID))
	}
	var rec pushRecord
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return nil, fmt.Errorf("read push checkpoint: %w", err)
	}
	var files []string
	for _, it := range rec.Items {
		if it.Status == "done" && !slices.Contains(files, it.Path) {
			files = append(files, it.Path)
		}
	}
	return files, nil
}

// revisePushed runs the coder on the branch and pushes its commit
// (crediting requester), unless a checkpoint says that was done. The
// commit is noted as the bot's, for request, before it is pushed.
func (s *runJob) revisePushed(ctx context.Context, key string, req Review, msg, requester, request string) (*reviseRecord, error) {
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
	if rec, err := s.pushedBefore(ctx, wt, key, msg, request); err != nil || rec != nil {
		return rec, err
	}
	spec, err := s.readSpec(ctx)
	if _, limited := rateLimited(err); limited {
		return nil, err // the spec is there: wait for GitHub's limit, not revise without it
	}
	if err != nil {
		spec = &work.Spec{}
	}
	req.Spec = spec
	rec := &reviseRecord{}
	res, err := s.e.d.Coder.Revise(ctx, wt.Workspace(), req, s.cfg)
	if f := s.spendFault(); f != nil {
		return nil, f
	}
	if res != nil {
		if uerr := s.addUsage(ctx, llm.RoleCoder, Spend{Usage: res.Usage, Cost: res.Cost}); uerr != nil {
			return nil, uerr
		}
		rec.Tokens, rec.Cost = int64(res.Usage.Total()), s.e.priced(llm.RoleCoder, Spend{Usage: res.Usage, Cost: res.Cost})
	}
	switch over := s.overLimit(); {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case over != nil:
		rec.Failure = over.Error() // a spending limit stopped the coder: say which
	case err != nil:
		rec.Failure = redact(err.Error())
	case len(res.Changed) == 0:
		rec.Failure = "the coder found nothing to change." + "\n" + strings.TrimSpace(res.Summary)
	default:
		coAuthors := []string{}
		if requester != "" && !strings.HasSuffix(requester, "[bot]") {
			coAuthors = append(coAuthors, requester)
		}
		sha, changed, err := wt.Commit(ctx, msg, coAuthors...)
		if errors.Is(err, ErrBlockedChange) {
			rec.Failure = redact(err.Error())
			break
		}
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if err := s.noteCommit(ctx, sha, request); err != nil {
			return nil, err
		}
		if err := wt.Push(ctx); err != nil {
			return nil, fmt.Errorf("push %s: %w", s.run.Branch, err)
		}
		rec.SHA, rec.Changed, rec.Summary, rec.Files = sha, changed, res.Summary, res.Changed
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	_, err = st.Checkpoint(ctx, s.run.ID, key, string(raw))
	return rec, err
}

// pushedBefore finds the commit an earlier attempt pushed for request
// when its checkpoint (key) was not stored: the branch's head is a commit
// noted for request. The coder is not run again on its own change; the
// record holds the commit (nil when there is none).
func (s *runJob) pushedBefore(ctx context.Context, wt Worktree, key, msg, request string) (*reviseRecord, error) {
	head, ok, err := s.headNotedFor(ctx, wt, msg, request)
	if err != nil || !ok {
		return nil, err
	}
	rec := &reviseRecord{SHA: head, Changed: true}
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	_, err = s.e.d.Store.Checkpoint(ctx, s.run.ID, key, string(raw))
	return rec, err
}

// headNotedFor returns the fresh checkout wt's head and whether it is a
// commit the bot noted for request before pushing it (an earlier attempt
// pushed it, then died before its checkpoint).
func (s *runJob) headNotedFor(ctx context.Context, wt Worktree, msg, request string) (string, bool, error) {
	head, changed, err := wt.Commit(ctx, msg) // a fresh checkout: nothing to commit, the head back
	if err != nil || changed {
		return "", false, err
	}
	noted, ok, err := s.e.d.Store.StepResult(ctx, s.run.ID, commitKey(head))
	return head, err == nil && ok && noted == request, err
}

// hasReply reports whether the bot already replied to the comment (a
// resumed job must not reply twice). Only the bot's own comments count
// (bots, its logins on each forge, when known): another App's bot could
// echo a user's text, marker and all, and silence the reply.
func hasReply(thread []DiffComment, m ghtext.Marker, bots ...string) bool {
	known := slices.ContainsFunc(bots, func(b string) bool { return b != "" })
	for _, c := range thread {
		if !c.AuthorIsBot || known && !slices.ContainsFunc(bots, func(b string) bool { return strings.EqualFold(c.Author, b) }) {
			continue
		}
		if got, ok := ghtext.ParseMarker(c.Body); ok && got.Kind == m.Kind && got.Run == m.Run && got.Version == m.Version {
			return true
		}
	}
	return false
}

// earlierReviewPending reports whether a revise request of run that was
// queued before job jobID still waits to be handled: requests are handled
// one at a time, in the order they arrived, whatever their source. Work asks
// before it takes the lease, so a later request never holds the
// lease while the earlier one is refused it (both would snooze, again and
// again, whenever they were fetched together).
func (e *Engine) earlierReviewPending(ctx context.Context, run *Run, jobID int64) (bool, error) {
	params := river.NewJobListParams().Kinds(StageArgs{}.Kind()).First(1000).States(store.QueuedStates()...)
	jobs, err := e.queue.Jobs(ctx, params)
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		var a StageArgs
		if j.ID >= jobID || json.Unmarshal(j.EncodedArgs, &a) != nil || a.RunID != run.ID ||
			a.Stage != StageRevise || a.CommentID == 0 {
			continue
		}
		// River records completions asynchronously: the checkpoint says
		// whether it really is still to do.
		if _, done, err := e.d.Store.StepResult(ctx, run.ID, reviseKey(a)); err != nil {
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
func (s *runJob) answerMention(ctx context.Context) error {
	_, err := s.gh.UpsertComment(ctx, s.run.Owner, s.run.Repo, s.run.PRNumber, ghtext.Marker{Kind: "hint"}, mentionHint)
	if err != nil {
		return fmt.Errorf("answer mention: %w", err)
	}
	return nil
}
