// Package otelexport exports sessions (package session) as OpenTelemetry
// traces over OTLP/HTTP, with the GenAI semantic conventions (gen_ai.*), so
// the runs the bot records also show in Jaeger, Grafana Tempo, Langfuse or
// Phoenix.
//
// An Exporter wraps a session.Sink (Wrap, given to session.Options.Wrap):
// every call goes to the wrapped sink unchanged and its result comes back
// unchanged; what was stored is then turned into spans, which the SDK's
// batch span processor sends in the background. One run is one trace:
//
//	run OWNER/NAME#N (root: the run's start)
//	├── explore (a step: its first attempt's start to its finish)
//	│   └── explore 1, explore 1 (attempt 2), ... (each attempt)
//	│       └── "chat {model}", "execute_tool {tool}", "edit {path}",
//	│           "check {name}", "commit {sha}", "github {what}", ...
//	└── run ended: STATE (the run's start to each end, with its totals)
//
// No span stays open across a call, and none is emitted twice: the root
// when the session is created, a call's span as its event is stored, an
// attempt's when the step finishes or is left in this process (the next
// step begins, the run ends, the process stops), a step's when it
// finishes (or the run ends during it), an end's at each end (a run ended
// can be reopened by a review or CI round, so the root cannot wait for
// it). Each span is parented to its parent's span context derived from the
// session id, never to a live span, so a job resumed in a new process
// (after a crash or a restart) lands in the same trace under the same
// parents. The trace and derived span ids are an HMAC of the session's id
// and start (and step, attempt) under a key (the server gives the App's
// private key): stable across restarts, distinct between installations
// sharing a backend and after a database started afresh, not guessable
// from a session id. Calls' spans go out in batches; the root, each step
// and each end are flushed at once (in the background), so a process killed
// loses at most its open attempt's span and the calls of its last moments
// (those sent still show, under the missing attempt). Tool calls carry the
// id of the model's call they answer (gen_ai.tool.call.id), matched by name
// and arguments within the step.
//
// Export is on only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (Enabled); the SDK reads the
// other standard OTEL_* variables itself (headers, timeout, service name,
// resource attributes), except the sampler: every run is exported whole.
// Attributes hold names, counts, durations and results, never prompts or
// outputs; Options.Content adds the recorded (already redacted) texts as
// the conventions' opt-in attributes (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.tool.call.arguments,
// gen_ai.tool.call.result).
//
// It must never fail, block or slow the run it observes: it returns the
// wrapped sink's results as they are, spans are queued (dropped when the
// queue is full), export failures are logged at most once a minute
// (Options.Logger), and Shutdown flushes within its context's bound. It
// never reads the store beyond what the wrapped calls return.
package otelexport
