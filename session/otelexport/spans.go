package otelexport

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// The bot's own attributes, beside the conventions'.
const (
	attrSession   = attribute.Key("issuesmith.session.id")
	attrRun       = attribute.Key("issuesmith.run.id")
	attrInstall   = attribute.Key("issuesmith.installation.id")
	attrRepo      = attribute.Key("issuesmith.repository")
	attrIssue     = attribute.Key("issuesmith.issue")
	attrRequester = attribute.Key("issuesmith.requester")
	attrState     = attribute.Key("issuesmith.run.state")
	attrStage     = attribute.Key("issuesmith.stage")
	attrStep      = attribute.Key("issuesmith.step")
	attrAttempt   = attribute.Key("issuesmith.step.attempt")
	attrAttempts  = attribute.Key("issuesmith.step.attempts")
	attrFinished  = attribute.Key("issuesmith.step.finished")
	attrSeq       = attribute.Key("issuesmith.event.seq")
	attrKind      = attribute.Key("issuesmith.event.kind")
	attrShrunk    = attribute.Key("issuesmith.event.shrunk")
	attrCalls     = attribute.Key("issuesmith.model_calls")
	attrInTokens  = attribute.Key("issuesmith.usage.input_tokens")
	attrCached    = attribute.Key("issuesmith.usage.cached_tokens")
	attrOutTokens = attribute.Key("issuesmith.usage.output_tokens")
	attrCost      = attribute.Key("issuesmith.cost_usd")
	attrEstimated = attribute.Key("issuesmith.usage.estimated")
)

// start starts a span at t under parent (a derived span of the session);
// forced, when valid, is the new span's own id (a derived one).
func (e *Exporter) start(r run, parent, forced trace.SpanID, name string, t time.Time,
	attrs ...attribute.KeyValue) trace.Span {
	ctx := context.Background()
	if parent.IsValid() {
		ctx = e.ids.parent(ctx, r, parent)
	}
	if forced.IsValid() {
		ctx = withIDs(ctx, e.ids.trace(r), forced)
	}
	attrs = append(attrs, attrSession.Int64(r.id))
	_, sp := e.tracer.Start(ctx, name, trace.WithTimestamp(t), trace.WithAttributes(attrs...),
		trace.WithSpanKind(trace.SpanKindInternal))
	return sp
}

// rootSpan exports the run's root: it marks the run's start and carries
// who and what it is for. (A span cannot be reopened, and a run can end,
// be reopened by a review or CI round and end again: each end is a child,
// endSpan.)
func (e *Exporter) rootSpan(s store.Session) {
	name := "run " + s.FullRepo()
	if s.Issue > 0 {
		name += "#" + strconv.Itoa(s.Issue)
	}
	t := s.StartedAt
	if t.IsZero() {
		t = time.Now()
	}
	sp := e.start(runOf(s), trace.SpanID{}, e.ids.root(runOf(s)), name, t,
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentName("issuesmith"),
		semconv.GenAIConversationID(strconv.FormatInt(s.ID, 10)), semconv.GenAIProviderNameKey.String(e.provider),
		attrRun.Int64(s.RunID), attrInstall.Int64(s.InstallationID), attrRepo.String(s.FullRepo()),
		attrIssue.Int(s.Issue), attrRequester.String(s.Requester))
	sp.End(trace.WithTimestamp(t))
}

// endSpan exports the run's end in state: a span from the run's start to
// now, with the session's totals.
func (e *Exporter) endSpan(s store.Session, state string) {
	now := time.Now()
	from := now
	if !s.StartedAt.IsZero() && s.StartedAt.Before(now) {
		from = s.StartedAt
	}
	sp := e.start(runOf(s), e.ids.root(runOf(s)), trace.SpanID{}, "run ended: "+state, from,
		attrState.String(state), attrCalls.Int64(s.ModelCalls), attrInTokens.Int64(s.PromptTokens),
		attrCached.Int64(s.CachedTokens), attrOutTokens.Int64(s.CompletionTokens), attrCost.Float64(s.Cost))
	if state == store.StateFailed {
		sp.SetStatus(codes.Error, "the run failed")
	}
	sp.End(trace.WithTimestamp(now))
}

// endStep exports the attempt open in st: finished when why is "", else
// left unfinished for why. A step that finished, or was open when the run
// ended, also gets its own span, named by its stage, from its first
// attempt's start: the parent of its attempts (e.mu held).
func (e *Exporter) endStep(st *state, why string) {
	r := runOf(st.meta)
	a := st.open
	st.open = nil
	now := time.Now()
	si := st.steps[a.step]
	stage := a.step
	first := a.start
	if si != nil {
		stage = cmpOr(si.stage, a.step)
		if si.first.Before(a.start) {
			first = si.first
		}
	}
	name := a.step
	if a.n > 1 {
		name += fmt.Sprintf(" (attempt %d)", a.n)
	}
	sp := e.start(r, e.ids.step(r, a.step), e.ids.attempt(r, a.step, a.n), name, a.start,
		attrStage.String(stage), attrStep.String(a.step), attrAttempt.Int(a.n), attrFinished.Bool(why == ""))
	if why != "" {
		sp.SetStatus(codes.Error, why)
	}
	sp.End(trace.WithTimestamp(now))
	if why != "" && why != whyRunEnded {
		return // the step resumes later, as a new attempt
	}
	sp = e.start(r, e.ids.root(r), e.ids.step(r, a.step), stage, first,
		attrStage.String(stage), attrStep.String(a.step), attrAttempts.Int(a.n), attrFinished.Bool(why == ""))
	if why != "" {
		sp.SetStatus(codes.Error, why)
	}
	sp.End(trace.WithTimestamp(now))
}

// whyRunEnded is why a step open when its run ended is unfinished.
const whyRunEnded = "the run ended during the step"

// eventSpan exports one stored event as a span under its step's attempt
// (under the run's root when it was recorded outside a step).
func (e *Exporter) eventSpan(r run, ev *store.SessionEvent, p session.Event, callID string) {
	parent := e.ids.root(r)
	if ev.Step != "" {
		parent = e.ids.attempt(r, ev.Step, ev.Attempt)
	}
	name, attrs, failed := e.describe(p, callID)
	attrs = append(attrs, attrSeq.Int64(ev.Seq), attrKind.String(ev.Kind), attrStage.String(ev.Stage))
	if ev.Shrunk {
		attrs = append(attrs, attrShrunk.Bool(true))
	}
	sp := e.start(r, parent, trace.SpanID{}, name, ev.At.Add(-ev.Duration), attrs...)
	if failed != "" {
		sp.SetStatus(codes.Error, failed)
	}
	sp.End(trace.WithTimestamp(ev.At))
}
