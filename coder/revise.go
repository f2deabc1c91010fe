package coder

import (
	"context"
	"errors"
	"fmt"

	clippkg "github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// LineRange is a 1-based inclusive line range of a review comment; zero
// values mean the comment is on the whole file.
type LineRange struct {
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
}

// String renders "lines 10–14", "line 10" or "".
func (l LineRange) String() string {
	switch {
	case l.Start <= 0 && l.End <= 0:
		return ""
	case l.Start <= 0 || l.Start == l.End:
		return fmt.Sprintf("line %d", max(l.Start, l.End))
	}
	return fmt.Sprintf("lines %d–%d", l.Start, l.End)
}

// ReviewRequest is one review comment to address.
type ReviewRequest struct {
	Path    string    // file the comment is on, repo-relative
	Lines   LineRange // lines the comment is on
	Thread  []string  // earlier comments of the thread, oldest first, as "author: text"
	Comment string    // the comment to address
	// DiffHunk is the pull request diff around the comment, as GitHub
	// sends it; optional.
	DiffHunk string
	// Topic optionally names what the pull request implements (the spec's
	// topic), for context.
	Topic string
	// Evidence, when set, makes this a CI fix: the failing checks' output
	// (already redacted and fenced as untrusted) replaces the comment, with
	// the plan's items ("path: steps") and the pull request's Diff so far.
	Evidence string
	Plan     []string
	Diff     string
}

// Revise changes the workspace as the review comment asks: one session on
// req.Path (the only file it may write, blocked globs still apply), then the
// same checks and fix rounds as Implement, with the language servers'
// diagnostics when Options.Diagnostics is set. When the model answers with
// prose and no edit (the comment needs no code change), the item is skipped
// with the model's explanation as Reason, for the reply to the reviewer.
func (c *Coder) Revise(ctx context.Context, ws *repo.Workspace, req ReviewRequest) (*Result, error) {
	if ws == nil {
		return nil, errors.New("revise: workspace is required")
	}
	if err := work.CheckPath(req.Path); err != nil {
		return nil, fmt.Errorf("revise: %w", err)
	}
	p := cleanRel(req.Path)
	plan := &work.Plan{Items: []work.Item{{Path: p, Action: work.ActionModify,
		Steps: []work.Step{{Text: req.Comment}}}}}
	r, err := c.newRun(ctx, ws, &work.Spec{Topic: req.Topic}, plan)
	if err != nil {
		return nil, err
	}
	ir := ItemResult{Path: p, Action: work.ActionModify}
	if why := r.blockedWhy(p); why != "" {
		ir.Status, ir.Reason = ItemBlocked, why
		r.res.Blocked = appendUnique(r.res.Blocked, p)
		r.event(p, 0, "blocked", "%s", ir.Reason)
		r.res.Items = append(r.res.Items, ir)
		r.ended(0, ir)
		return r.finish()
	}
	r.started(0, p)
	r.startDiagnostics(ctx)
	defer r.stopDiagnostics()
	data, exists, err := r.tree.read(p)
	if err != nil {
		return nil, err
	}
	view := buildView(p, data, exists, focusOf(req.Comment, req.Evidence), c.opts.MaxFileLines)
	if !view.Whole && exists && req.Lines.Start > 0 {
		view = regionView(p, data, req.Lines, c.opts.MaxFileLines)
	}
	var prompt string
	if req.Evidence != "" {
		prompt, err = render(c.prompts.fixci, fixCIPrompt{Path: p, Topic: req.Topic, Plan: req.Plan,
			Diff: clippkg.Bytes(req.Diff, maxCIDiff, "\n(diff cut)"), Evidence: req.Evidence, View: view})
		r.event(p, 0, "prompt", "CI fix")
	} else {
		prompt, err = render(c.prompts.revise, revisePrompt{Path: p, Lines: req.Lines.String(), Comment: req.Comment,
			Topic: req.Topic, Thread: req.Thread, DiffHunk: req.DiffHunk, View: view})
		r.event(p, 0, "prompt", "review comment on %s", req.Lines)
	}
	if err != nil {
		return nil, err
	}
	s := r.newSession(p, []string{p})
	s.mayDecline = true
	if err := s.converse(ctx, prompt); err != nil {
		return nil, fmt.Errorf("revise %s: %w", p, err)
	}
	s.fill(&ir)
	r.res.Items = append(r.res.Items, ir)
	r.ended(0, ir)
	if err := r.checkAndFix(ctx); err != nil {
		return nil, fmt.Errorf("revise: checks: %w", err)
	}
	r.stopDiagnostics()
	return r.finish()
}

// maxCIDiff bounds the pull request's diff in a CI fix prompt.
const maxCIDiff = 24 << 10

// regionView shows a large file as its outline plus the commented lines with
// 30 lines of context on each side.
func regionView(p string, data []byte, lines LineRange, maxLines int) fileView {
	v := buildView(p, data, true, focus{}, maxLines)
	end := max(lines.End, lines.Start)
	v.Regions = capRegions(mergeRegions([]region{{lines.Start - 30, end + 30}}, v.Lines), maxLines)
	v.Content = renderRegions(splitKeep(string(data)), v.Regions)
	return v
}
