package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/issuesmith/issuesmith/llm"
)

// wireRequest is the subset of the chat completions request we read.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []wireCall      `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	MaxTokens           int     `json:"max_tokens"`
	MaxCompletionTokens int     `json:"max_completion_tokens"`
	Temperature         float64 `json:"temperature"`
}

type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func decodeRequest(hr *http.Request, body []byte) (Request, error) {
	req := Request{Path: hr.URL.Path, Header: hr.Header.Clone(), Role: hr.Header.Get(llm.RoleHeader), Body: body,
		Probe: hr.Header.Get(llm.ProbeHeader)}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, fmt.Errorf("body is not a chat completions request: %v", err)
	}
	req.Model, req.Stream, req.Temperature = wr.Model, wr.Stream, wr.Temperature
	req.StreamUsage = wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage
	req.JSON = wr.ResponseFormat != nil && wr.ResponseFormat.Type == "json_object"
	req.MaxTokens = max(wr.MaxTokens, wr.MaxCompletionTokens)
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range wr.Messages {
		msg := llm.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
		if err := json.Unmarshal(m.Content, &msg.Content); err != nil && len(m.Content) > 0 && string(m.Content) != "null" {
			msg.Content = string(m.Content) // multi-part content, kept raw
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}
