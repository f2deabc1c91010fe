package agents

import (
	"context"
	"strings"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/work"
)

// The workflow puts the run's session.Recorder in the stage's context
// (session.With); the adapters here record to it without knowing whether
// there is one: the models the Models give record each call
// (session.WrapModel), the agents' tools each call (WrapTool), the
// explorer its compressions and observer interventions, the coder its
// edits and checks. Without a Recorder in the context nothing is recorded.

// explorerRecording makes the explorer's options record to the context's
// session: every tool call, and each compression and observer
// intervention (on top of any Progress already set).
func explorerRecording(ctx context.Context, o preagent.Options) preagent.Options {
	rec := session.From(ctx)
	if rec == nil {
		return o
	}
	o.WrapTool = rec.Tool
	record := func(ev work.Event) {
		switch ev.Kind {
		case work.EventCompress:
			if ev.Before > 0 { // the rewrite itself, not its model verdicts (a model call)
				rec.Compression(ctx, session.Compression{TokensBefore: ev.Before, TokensAfter: ev.PromptTokens, Record: ev.Detail})
			}
		case work.EventObserver:
			rec.Observer(ctx, ev.Detail)
		}
	}
	o.Progress = work.Progress(record).Then(o.Progress)
	return o
}

// RecordCode records what the coder did to rec: each edit block applied
// (with the file's whole diff, once) or refused, the syntax guard's
// rollbacks and gofmt, and every check with the tail of its output.
func RecordCode(ctx context.Context, rec *session.Recorder, res *coder.Result) {
	if rec == nil || res == nil {
		return
	}
	diffs := map[string]string{}
	for _, f := range res.Changes.Files {
		diffs[f.Path] = f.Diff
	}
	for _, ev := range res.Transcript {
		switch ev.Kind {
		case "apply":
			rec.Edit(ctx, session.Edit{Path: ev.Item, Applied: true, Where: ev.Detail, Diff: diffs[ev.Item]})
			delete(diffs, ev.Item) // the file's whole diff once, with its first applied edit
		case "refused", "blocked":
			rec.Edit(ctx, session.Edit{Path: ev.Item, Refused: ev.Detail})
		case "rollback":
			rec.Check(ctx, session.Check{Name: "syntax guard", OK: false, Output: ev.Detail}, 0)
		case "gofmt":
			rec.Check(ctx, session.Check{Name: "gofmt", OK: true, Output: ev.Detail}, 0)
		}
	}
	for _, c := range res.Checks {
		rec.Check(ctx, session.Check{Name: c.Name, Command: c.Command, OK: c.OK, Output: c.Output}, c.Duration)
	}
	for _, d := range res.Diagnostics {
		rec.Check(ctx, session.Check{Name: "diagnostics", OK: false, Output: strings.TrimSpace(d.String())}, 0)
	}
}
