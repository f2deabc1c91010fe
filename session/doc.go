// Package session records what the bot did in a run, as an append-only,
// ordered log of events grouped by stage (explore, plan, code, each revise
// round, each CI round) and step: model calls, tool calls, compressions,
// observer interventions, edit blocks, checks, commits pushed and GitHub
// writes.
//
// A Recorder writes each event as it happens to a Sink (the store, or a
// JSON-lines file for `bot solve --session`), so a crash loses at most the
// event in flight. A resumed job opens the run's session again and appends;
// the events of a step that had finished are dropped, never repeated. Every
// text is redacted (internal/redact) and clipped before it is stored; system
// prompts and tool schemas are stored once per session. A session is bounded
// (MaxBytes, default 2 MB): the oldest tool-result excerpts shrink first,
// then new events are stored without their texts, then dropped, and the cut
// is marked.
//
// Options.Wrap decorates the sink (package session/otelexport exports the
// session as an OpenTelemetry trace through it).
//
// Recording never fails the run: a Sink error is logged once per recorder
// and counted (Options.OnError), and the run goes on. A nil *Recorder records
// nothing, so callers need no checks.
//
// Decorators record without touching the agents: Recorder.Model wraps an
// llm.Model (the request's system prompt and tools stored once, then only
// the messages new since the previous call), Recorder.Tool an llm.Tool;
// WrapModel and WrapTool record to the Recorder the context carries (With).
// Decode and Load read events back for the page and the command line.
//
// It must never write to GitHub, never store a text that has not passed the
// redactor, and never return a recording failure to the run.
package session
