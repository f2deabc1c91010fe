package otelexport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/session/otelexport"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

const (
	token  = "ghs_0123456789abcdefABCDEF0123456789ab"
	secret = "hunter2-secret-value"
)

type readArgs struct {
	Path string `json:"path"`
}

// readTool answers with a file body that carries two secrets.
func readTool() llm.Tool {
	return llm.NewTool("read_file", "Read a file.", func(_ context.Context, a readArgs) (llm.ToolResult, error) {
		return llm.ToolResult{Content: a.Path + ": token " + token + " and " + secret}, nil
	})
}

func meta(run int64) store.Session {
	return store.Session{InstallationID: 42, RunID: run, Owner: "acme", Repo: "web", Issue: 7, Requester: "alice"}
}

// runAgent runs one agent of role through r's decorators against script.
func runAgent(t *testing.T, r *session.Recorder, role llm.Role, script llmtest.Script) {
	t.Helper()
	srv := llmtest.NewServer(t, script)
	client, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	agent := &llm.Agent{Role: role, Model: r.Model(client), Tools: r.Tools([]llm.Tool{readTool()})}
	_, err = agent.Run(t.Context(), []llm.Message{{Role: llm.System, Content: "You are the " + string(role) + "."},
		{Role: llm.User, Content: "Issue: the token " + token + " leaks."}})
	require.NoError(t, err)
}

// A run recorded through the real Recorder on real SQLite, exported to a
// loopback OTLP/HTTP receiver from the standard environment: one trace,
// run → stage → step → calls, the GenAI attributes and token counts, tool
// calls carrying the model's call ids, and no secret in any attribute
// (even with the recorded texts included).
func TestRunIsExportedAsOneTrace(t *testing.T) {
	rcv := newReceiver(t)
	t.Setenv(otelexport.EndpointVar, rcv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "bot-under-test")
	require.True(t, otelexport.Enabled())
	require.Equal(t, rcv.URL+"/v1/traces", otelexport.Endpoint())
	exp, err := otelexport.New(t.Context(), otelexport.Options{Key: []byte("installation key"), Content: true})
	require.NoError(t, err)
	st := storetest.SQLite(t)
	r := session.Start(t.Context(), st, meta(1), session.Options{Secrets: []string{secret}, Wrap: exp.Wrap})
	require.NotNil(t, r)

	r.Begin(t.Context(), session.StageExplore, "explore 1")
	runAgent(t, r, llm.RoleExplorer, llmtest.Script{
		llmtest.Calls(llmtest.CallSpec{Name: "read_file", Args: `{"path":"main.go"}`, ID: "call_a"},
			llmtest.CallSpec{Name: "read_file", Args: `{"path":"go.mod"}`, ID: "call_b"}).WithUsage(1000, 20, 600),
		llmtest.Reply("done: the bug is in main.go").WithUsage(1400, 10, 1100),
	})
	r.Finish(t.Context())
	r.Begin(t.Context(), session.StagePlan, "plan 1")
	runAgent(t, r, llm.RolePlanner, llmtest.Script{llmtest.Reply("1. fix main.go").WithUsage(500, 30, 0)})
	r.Check(t.Context(), session.Check{Name: "go vet", Command: "go vet ./...", OK: false, Output: "vet: " + token}, time.Second)
	r.Finish(t.Context())
	r.End(t.Context(), store.StateDone)
	require.NoError(t, exp.Shutdown(t.Context()))

	spans := rcv.got()
	require.Contains(t, rcv.services, "bot-under-test")
	require.Contains(t, rcv.paths, "/v1/traces")
	for _, s := range spans {
		require.Equal(t, id(spans[0].GetTraceId()), id(s.GetTraceId()), "span %q is in another trace", s.GetName())
		for k, v := range attrs(s) {
			text, _ := json.Marshal(v)
			require.NotContains(t, string(text), token, "%s of %q", k, s.GetName())
			require.NotContains(t, string(text), secret, "%s of %q", k, s.GetName())
		}
	}
	root := one(t, spans, "run acme/web#7")
	require.Empty(t, root.GetParentSpanId())
	require.Equal(t, "invoke_agent", attrs(root)["gen_ai.operation.name"])
	explore, plan := one(t, spans, "explore"), one(t, spans, "plan")
	requireParent(t, root, explore, plan, one(t, spans, "run ended: done"))
	exploreStep, planStep := one(t, spans, "explore 1"), one(t, spans, "plan 1")
	requireParent(t, explore, exploreStep)
	requireParent(t, plan, planStep)
	require.Equal(t, true, attrs(exploreStep)["issuesmith.step.finished"])

	chats := byName(spans, "chat test")
	require.Len(t, chats, 3)
	requireParent(t, exploreStep, chats[0], chats[1])
	requireParent(t, planStep, chats[2])
	a := attrs(chats[0])
	require.Equal(t, "chat", a["gen_ai.operation.name"])
	require.Equal(t, "openai", a["gen_ai.provider.name"])
	require.Equal(t, "test", a["gen_ai.request.model"])
	require.Equal(t, "test", a["gen_ai.response.model"])
	require.Equal(t, string(llm.RoleExplorer), a["gen_ai.agent.name"])
	require.EqualValues(t, 1000, a["gen_ai.usage.input_tokens"])
	require.EqualValues(t, 20, a["gen_ai.usage.output_tokens"])
	require.EqualValues(t, 600, a["gen_ai.usage.cache_read.input_tokens"])
	require.Equal(t, []any{"tool_calls"}, a["gen_ai.response.finish_reasons"])
	require.Contains(t, a["gen_ai.input.messages"], "[redacted]", "the recorded, redacted text")
	require.EqualValues(t, 500, attrs(chats[2])["gen_ai.usage.input_tokens"])

	tools := byName(spans, "execute_tool read_file")
	require.Len(t, tools, 2)
	requireParent(t, exploreStep, tools...)
	calls := map[string]string{} // call id → arguments
	for _, s := range tools {
		ta := attrs(s)
		require.Equal(t, "execute_tool", ta["gen_ai.operation.name"])
		require.Equal(t, "read_file", ta["gen_ai.tool.name"])
		calls[ta["gen_ai.tool.call.id"].(string)] = ta["gen_ai.tool.call.arguments"].(string)
	}
	require.Equal(t, map[string]string{"call_a": `{"path":"main.go"}`, "call_b": `{"path":"go.mod"}`}, calls)

	vet := one(t, spans, "check go vet")
	requireParent(t, planStep, vet)
	require.Equal(t, tracepb.Status_STATUS_CODE_ERROR, vet.GetStatus().GetCode())
	require.Equal(t, time.Second, time.Duration(vet.GetEndTimeUnixNano()-vet.GetStartTimeUnixNano()))
	ended := one(t, spans, "run ended: done")
	require.Equal(t, root.GetStartTimeUnixNano(), ended.GetStartTimeUnixNano(), "the run's start to its end")
	require.GreaterOrEqual(t, ended.GetEndTimeUnixNano(), vet.GetEndTimeUnixNano())
	end := attrs(ended)
	require.EqualValues(t, 3, end["issuesmith.model_calls"])
	require.EqualValues(t, 1400+1000+500, end["issuesmith.usage.input_tokens"])
}

// requireParent checks that each child's parent is parent.
func requireParent(t *testing.T, parent *tracepb.Span, children ...*tracepb.Span) {
	t.Helper()
	for _, c := range children {
		require.Equal(t, id(parent.GetSpanId()), id(c.GetParentSpanId()), "parent of %q", c.GetName())
	}
}

// exporterTo builds an Exporter sending to url with key.
func exporterTo(t testing.TB, url string, key string, content bool, opts ...otlptracehttp.Option) *otelexport.Exporter {
	t.Helper()
	client, err := otlptracehttp.New(t.Context(), append([]otlptracehttp.Option{otlptracehttp.WithEndpointURL(url + "/v1/traces")}, opts...)...)
	require.NoError(t, err)
	exp, err := otelexport.New(t.Context(), otelexport.Options{Key: []byte(key), Content: content, Exporter: client})
	require.NoError(t, err)
	return exp
}

// A job resumed in a new process (a new Exporter with the same key, a new
// Recorder on the same database) after the first was killed mid-step
// lands in the same trace, its step under the run's root span; without
// Content no recorded text is exported. The same session id in a fresh
// database or another installation makes another trace.
func TestResumedRunJoinsItsTrace(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	st := storetest.SQLite(t)
	first := exporterTo(t, rcv.URL, "key one", false)
	r1 := session.Start(t.Context(), st, meta(5), session.Options{Wrap: first.Wrap})
	r1.Begin(t.Context(), session.StageCode, "code 1")
	_, err := r1.Tool(readTool()).Call(t.Context(), json.RawMessage(`{"path":"a.go"}`))
	require.NoError(t, err)
	require.NoError(t, first.Flush(t.Context())) // then killed: the open step is never exported

	second := exporterTo(t, rcv.URL, "key one", false)
	r2 := session.Start(t.Context(), st, meta(5), session.Options{Wrap: second.Wrap})
	require.Equal(t, r1.ID(), r2.ID())
	r2.Begin(t.Context(), session.StageCode, "code 1")
	_, err = r2.Tool(readTool()).Call(t.Context(), json.RawMessage(`{"path":"b.go"}`))
	require.NoError(t, err)
	r2.Finish(t.Context())
	r2.End(t.Context(), store.StateDone)
	require.NoError(t, second.Shutdown(t.Context()))

	spans := rcv.got()
	for _, s := range spans {
		require.Equal(t, id(spans[0].GetTraceId()), id(s.GetTraceId()), "span %q is in another trace", s.GetName())
		a := attrs(s)
		require.NotContains(t, a, "gen_ai.tool.call.arguments")
		require.NotContains(t, a, "gen_ai.tool.call.result")
	}
	root := one(t, spans, "run acme/web#7")
	code := one(t, spans, "code")
	requireParent(t, root, code, one(t, spans, "run ended: done"))
	resumed := one(t, spans, "code 1 (attempt 2)")
	requireParent(t, code, resumed)
	require.Empty(t, byName(spans, "code 1"), "the killed attempt's span was never exported")
	tools := byName(spans, "execute_tool read_file")
	require.Len(t, tools, 2)
	requireParent(t, resumed, tools[1])
	require.EqualValues(t, 1, attrs(tools[0])["issuesmith.event.seq"])
	require.Less(t, code.GetStartTimeUnixNano(), tools[0].GetStartTimeUnixNano()+1, "the step's span starts at its first attempt")

	// The same session id in a database started afresh (same key), and in
	// another installation (another key): other traces.
	for _, key := range []string{"key one", "key two"} {
		other := exporterTo(t, rcv.URL, key, false)
		r3 := session.Start(t.Context(), storetest.SQLite(t), meta(5), session.Options{Wrap: other.Wrap})
		require.Equal(t, r1.ID(), r3.ID())
		require.NoError(t, other.Shutdown(t.Context()))
	}
	roots := map[string]bool{}
	for _, s := range byName(rcv.got(), "run acme/web#7") {
		roots[id(s.GetTraceId())] = true
	}
	require.Len(t, roots, 3)
}

// An endpoint that never answers neither fails nor holds up the run: every
// event is stored, and Shutdown gives up at its context's bound.
func TestUnansweredEndpointNeverBlocksTheRun(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	exp := exporterTo(t, hang.URL, "k", false, otlptracehttp.WithTimeout(time.Hour),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	st := storetest.SQLite(t)
	r := session.Start(t.Context(), st, meta(9), session.Options{Wrap: exp.Wrap})
	require.NotNil(t, r)
	r.Begin(t.Context(), session.StageCode, "code 1")
	const n = 3000 // beyond the batch queue (2048) and the batch in flight (512)
	for i := range n {
		r.Check(t.Context(), session.Check{Name: "guard", OK: true, Output: strings.Repeat("x", i%50)}, 0)
	}
	r.Finish(t.Context())
	r.End(t.Context(), store.StateDone)
	rec, err := session.Load(t.Context(), st, r.ID())
	require.NoError(t, err)
	require.Len(t, rec.Events, n)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	require.Error(t, exp.Shutdown(ctx), "the unanswered export is given up at the bound")
}

// A process that stops during a step exports the open attempt as
// unfinished, and not the step itself (it resumes in the next process).
func TestShutdownExportsTheOpenAttemptUnfinished(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	exp := exporterTo(t, rcv.URL, "k", false)
	r := session.Start(t.Context(), storetest.SQLite(t), meta(3), session.Options{Wrap: exp.Wrap})
	r.Begin(t.Context(), session.StageExplore, "explore 1")
	_, err := r.Tool(readTool()).Call(t.Context(), json.RawMessage(`{"path":"a.go"}`))
	require.NoError(t, err)
	require.NoError(t, exp.Shutdown(t.Context()))

	spans := rcv.got()
	attempt := one(t, spans, "explore 1")
	require.Equal(t, tracepb.Status_STATUS_CODE_ERROR, attempt.GetStatus().GetCode())
	require.Equal(t, "the process stopped during the step", attempt.GetStatus().GetMessage())
	require.Equal(t, false, attrs(attempt)["issuesmith.step.finished"])
	requireParent(t, attempt, one(t, spans, "execute_tool read_file"))
	require.Empty(t, byName(spans, "explore"), "the step goes on in the next process")
}

// The run's root and each finished step are sent as they are made, not
// with the next batch (here never: the batch delay is an hour), so a
// process killed moments later has sent them; the calls wait for a batch.
func TestRootAndStepsAreSentWithoutWaitingForABatch(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000")
	rcv := newReceiver(t)
	exp := exporterTo(t, rcv.URL, "k", false)
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	r := session.Start(t.Context(), storetest.SQLite(t), meta(4), session.Options{Wrap: exp.Wrap})
	require.True(t, rcv.waitFor(time.Minute, func() bool { return len(byName(rcv.got(), "run acme/web#7")) == 1 }), "the root was not sent")
	r.Begin(t.Context(), session.StagePlan, "plan 1")
	r.Check(t.Context(), session.Check{Name: "guard", OK: true}, 0)
	r.Finish(t.Context())
	require.True(t, rcv.waitFor(time.Minute, func() bool { return len(byName(rcv.got(), "plan")) == 1 }), "the step was not sent")
	require.Len(t, byName(rcv.got(), "check guard"), 1, "queued before the step ended, it went with it")
}
