package session

import (
	"context"
	"time"

	"github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/store"
)

var zeroDelta store.SessionDelta

// redactSlack is how much text beyond a clip is redacted with it, so a
// secret crossing the cut is still whole when the redactor sees it.
const redactSlack = 512

// clean redacts s, then clips it to n bytes, marking the cut. Only the
// bytes that can be kept are redacted (the redactor's regular expressions
// are most of recording's cost).
func (r *Recorder) clean(s string, n int) string {
	if len(s) > n+redactSlack {
		s = clip.Bytes(s, n+redactSlack, "")
	}
	return clip.Bytes(r.secrets.Text(s), n, "\n[cut]")
}

// cleanTail is clean keeping the last n bytes: the end of an output says
// what failed.
func (r *Recorder) cleanTail(s string, n int) string {
	if len(s) > n+redactSlack {
		s = s[runeStart(s, len(s)-n-redactSlack):]
	}
	s = r.secrets.Text(s)
	if len(s) <= n {
		return s
	}
	return "[cut]\n" + s[runeStart(s, len(s)-n):]
}

// runeStart moves i forward to the start of a UTF-8 character.
func runeStart(s string, i int) int {
	for i < len(s) && s[i]&0xC0 == 0x80 { // a continuation byte
		i++
	}
	return i
}

// Edit records one edit block: applied where, or refused why and the
// feedback sent back.
func (r *Recorder) Edit(ctx context.Context, e Edit) {
	if r == nil {
		return
	}
	e.Path = r.clean(e.Path, 1024)
	e.Where = r.clean(e.Where, 1024)
	e.Refused = r.clean(e.Refused, maxNote)
	e.Feedback = r.clean(e.Feedback, maxNote)
	e.Diff = r.clean(e.Diff, maxText)
	r.record(ctx, KindEdit, 0, Payload{Edit: &e}, zeroDelta)
}

// Check records a guard, gofmt, build, vet, check command, diagnostics or
// CI evidence that took dur: the result and the tail of its output.
func (r *Recorder) Check(ctx context.Context, c Check, dur time.Duration) {
	if r == nil {
		return
	}
	c.Command = r.clean(c.Command, 1024)
	c.Output = r.cleanTail(c.Output, maxOutput)
	r.record(ctx, KindCheck, dur, Payload{Check: &c}, zeroDelta)
}

// Commit records a commit pushed.
func (r *Recorder) Commit(ctx context.Context, c Commit) {
	if r == nil {
		return
	}
	c.Branch = r.clean(c.Branch, 1024)
	c.Message = r.clean(c.Message, maxNote)
	r.record(ctx, KindCommit, 0, Payload{Commit: &c}, zeroDelta)
}

// GitHub records a write on GitHub.
func (r *Recorder) GitHub(ctx context.Context, w GitHubWrite) {
	if r == nil {
		return
	}
	w.URL = r.clean(w.URL, 1024)
	w.Target = r.clean(w.Target, 1024)
	w.Text = r.clean(w.Text, maxNote)
	r.record(ctx, KindGitHub, 0, Payload{GitHub: &w}, zeroDelta)
}

// Compression records a history compressed into a record.
func (r *Recorder) Compression(ctx context.Context, c Compression) {
	if r == nil {
		return
	}
	c.Record = r.clean(c.Record, maxText)
	r.record(ctx, KindCompression, 0, Payload{Compression: &c}, zeroDelta)
}

// Observer records an observer's intervention.
func (r *Recorder) Observer(ctx context.Context, text string) {
	if r == nil {
		return
	}
	r.record(ctx, KindObserver, 0, Payload{Observer: &Note{Text: r.clean(text, maxNote)}}, zeroDelta)
}
