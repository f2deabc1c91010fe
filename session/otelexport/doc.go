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
//	run (root) → stage → step → "chat {model}", "execute_tool {tool}",
//	                            "edit {path}", "check {name}", ...
//
// No span stays open across a call: a call's span is emitted as its event
// is stored, a step's when it finishes (or is left: the next step begins,
// the run ends, the process stops), a stage's and the run's when the run
// ends. Each is parented to its parent's span context derived from the
// session id, never to a live span, so a job resumed in a new process (after
// a crash or a restart) lands in the same trace under the same parents. The
// trace and parent span ids are an HMAC of the session id under a key (the
// server derives it from the App's private key): stable across restarts,
// distinct between installations sharing a backend, and not guessable from
// a session id. A step whose process was killed has no span of its own; its
// calls still show, under that missing parent.
//
// Export is on only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (Enabled); the SDK reads the
// other standard OTEL_* variables itself (headers, timeout, service name,
// resource attributes, sampler). Attributes hold names, counts, durations
// and results, never prompts or outputs; Options.Content adds the recorded
// (already redacted) texts as the conventions' opt-in attributes
// (gen_ai.input.messages, gen_ai.output.messages, gen_ai.tool.call.arguments,
// gen_ai.tool.call.result).
//
// It must never fail, block or slow the run it observes: it returns the
// wrapped sink's results as they are, spans are queued (dropped when the
// queue is full), and Shutdown flushes within its context's bound.
package otelexport
