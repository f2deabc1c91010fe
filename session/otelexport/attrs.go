package otelexport

import (
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/issuesmith/issuesmith/session"
)

// describe names an event's span and gives its attributes, and why it
// failed ("" when it did not).
func (e *Exporter) describe(p session.Event, callID string) (name string, attrs []attribute.KeyValue, failed string) {
	switch {
	case p.Model != nil:
		return e.modelAttrs(p.Model)
	case p.Tool != nil:
		return e.toolAttrs(p.Tool, callID)
	case p.Edit != nil:
		attrs = []attribute.KeyValue{attribute.String("issuesmith.edit.path", p.Edit.Path),
			attribute.Bool("issuesmith.edit.applied", p.Edit.Applied), attribute.String("issuesmith.edit.where", p.Edit.Where)}
		if !p.Edit.Applied {
			failed = "the edit block was refused"
		}
		if e.content {
			attrs = append(attrs, attribute.String("issuesmith.edit.refused", p.Edit.Refused),
				attribute.String("issuesmith.edit.feedback", p.Edit.Feedback), attribute.String("issuesmith.edit.diff", p.Edit.Diff))
		}
		return "edit " + p.Edit.Path, attrs, failed
	case p.Check != nil:
		attrs = []attribute.KeyValue{attribute.String("issuesmith.check.name", p.Check.Name),
			attribute.String("issuesmith.check.command", p.Check.Command), attribute.Bool("issuesmith.check.ok", p.Check.OK)}
		if !p.Check.OK {
			failed = "the check failed"
		}
		if e.content {
			attrs = append(attrs, attribute.String("issuesmith.check.output", p.Check.Output))
		}
		return "check " + p.Check.Name, attrs, failed
	case p.Commit != nil:
		return "commit " + short(p.Commit.SHA, 12), []attribute.KeyValue{attribute.String("issuesmith.commit.sha", p.Commit.SHA),
			attribute.String("issuesmith.commit.branch", p.Commit.Branch), attribute.Int("issuesmith.commit.files", p.Commit.Files)}, ""
	case p.GitHub != nil:
		return "github " + p.GitHub.What, []attribute.KeyValue{attribute.String("issuesmith.github.what", p.GitHub.What),
			attribute.String("issuesmith.github.target", p.GitHub.Target), attribute.String("issuesmith.github.url", p.GitHub.URL)}, ""
	case p.Compression != nil:
		return "compress history", []attribute.KeyValue{attribute.Int("issuesmith.compression.tokens_before", p.Compression.TokensBefore),
			attribute.Int("issuesmith.compression.tokens_after", p.Compression.TokensAfter)}, ""
	case p.Observer != nil:
		if e.content {
			attrs = []attribute.KeyValue{attribute.String("issuesmith.observer.text", p.Observer.Text)}
		}
		return "observer", attrs, ""
	case p.Cut != nil:
		return "session cut", []attribute.KeyValue{attribute.String("issuesmith.cut", p.Cut.Text)}, ""
	}
	return string(p.Kind), nil, ""
}

// modelAttrs describes a chat completion by the GenAI conventions.
func (e *Exporter) modelAttrs(m *session.ModelCall) (string, []attribute.KeyValue, string) {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(e.provider),
		semconv.GenAIAgentName(string(m.Role)),
		semconv.GenAIUsageInputTokens(m.PromptTokens), semconv.GenAIUsageOutputTokens(m.CompletionTokens),
		semconv.GenAIUsageCacheReadInputTokens(m.CachedTokens), attrCost.Float64(m.Cost), attrEstimated.Bool(m.Estimated)}
	if m.Model != "" {
		// The model the role is configured with: asked for, and what
		// answered as far as the bot knows.
		attrs = append(attrs, semconv.GenAIRequestModel(m.Model), semconv.GenAIResponseModel(m.Model))
	}
	if m.FinishReason != "" {
		attrs = append(attrs, semconv.GenAIResponseFinishReasons(m.FinishReason))
	}
	failed := ""
	if m.Error != "" {
		failed = "the model call failed"
		attrs = append(attrs, semconv.ErrorTypeOther)
	}
	if e.content {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(inputMessages(m.Input)),
			semconv.GenAIOutputMessagesKey.String(outputMessages(m)))
		if m.Error != "" {
			attrs = append(attrs, attribute.String("issuesmith.error", m.Error))
		}
	}
	return "chat " + cmpOr(m.Model, string(m.Role)), attrs, failed
}

// toolAttrs describes a tool call by the GenAI conventions.
func (e *Exporter) toolAttrs(t *session.ToolCall, callID string) (string, []attribute.KeyValue, string) {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(t.Name),
		semconv.GenAIToolTypeKey.String("function"), attribute.Int("issuesmith.tool.result_bytes", t.ResultBytes)}
	if callID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(callID))
	}
	failed := ""
	switch {
	case t.Error != "":
		failed = "the tool failed"
		attrs = append(attrs, semconv.ErrorTypeOther)
	case t.IsError:
		failed = "the tool answered with an error"
		attrs = append(attrs, semconv.ErrorTypeKey.String("tool_error"))
	}
	if e.content {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(t.Args), semconv.GenAIToolCallResultKey.String(t.Result))
	}
	return "execute_tool " + t.Name, attrs, failed
}

// part and message are the conventions' message shape (gen_ai.input.messages).
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

func inputMessages(in []session.Message) string {
	msgs := make([]message, 0, len(in))
	for _, m := range in {
		if m.ToolCallID != "" {
			msgs = append(msgs, message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: m.ToolCallID, Content: m.Content}}})
			continue
		}
		msgs = append(msgs, message{Role: m.Role, Parts: []part{{Type: "text", Content: m.Content}}})
	}
	return marshal(msgs)
}

func outputMessages(m *session.ModelCall) string {
	out := message{Role: "assistant", FinishReason: m.FinishReason}
	if m.Text != "" {
		out.Parts = append(out.Parts, part{Type: "text", Content: m.Text})
	}
	for _, tc := range m.ToolCalls {
		p := part{Type: "tool_call", ID: tc.ID, Name: tc.Name}
		if json.Valid([]byte(tc.Arguments)) {
			p.Arguments = json.RawMessage(tc.Arguments)
		}
		out.Parts = append(out.Parts, p)
	}
	return marshal([]message{out})
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
