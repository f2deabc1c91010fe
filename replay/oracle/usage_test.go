package oracle

import (
	"context"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// roleTransport sets the role header the llm client sends.
type roleTransport struct{ role llm.Role }

func (rt roleTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(llm.RoleHeader, string(rt.role))
	return http.DefaultTransport.RoundTrip(r)
}

// The usage the oracle reports is what a provider bills: the tool
// definitions count as prompt tokens, and they lead the cached prefix, so
// a second call with the same tools is served them from the cache and a
// call with another tool list is not.
func TestUsageCountsToolDefinitions(t *testing.T) {
	srv, err := Start(&Task{Issue: "Fix it", Fixes: []Fix{{Path: "a.go", Action: work.ActionModify}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL()
	cfg.HTTPClient = &http.Client{Transport: roleTransport{llm.RoleExplorer}}
	client := openai.NewClientWithConfig(cfg)

	tool := func(desc string) openai.Tool {
		return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: "read_file", Description: desc,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}
	}
	long := strings.Repeat("Read a file of the repository, in windows of numbered lines. ", 120)
	submit := openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "submit_spec", Description: "Submit the spec.",
		Parameters: map[string]any{"type": "object"}}}
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "You explore."}, {Role: "user", Content: "Fix it"}}
	call := func(tools []openai.Tool) openai.Usage {
		t.Helper()
		resp, err := client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: Model, Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Usage
	}

	first := call([]openai.Tool{tool(long), submit})
	toolTokens := llm.CountText("read_file: " + long + "\n")
	if first.PromptTokens < toolTokens+llm.CountText("You explore.Fix it") {
		t.Fatalf("prompt tokens %d do not count the %d tokens of the tool definitions", first.PromptTokens, toolTokens)
	}
	if first.PromptTokensDetails.CachedTokens != 0 {
		t.Fatalf("first call cached %d", first.PromptTokensDetails.CachedTokens)
	}
	again := call([]openai.Tool{tool(long), submit})
	if c := again.PromptTokensDetails.CachedTokens; c < llm.CachedTokens(toolTokens) || c > again.PromptTokens {
		t.Fatalf("same tools again: cached %d of %d, want at least the tools' %d", c, again.PromptTokens, toolTokens)
	}
	other := call([]openai.Tool{tool("Read a file. " + long), submit})
	if c := other.PromptTokensDetails.CachedTokens; c != 0 {
		t.Fatalf("another tool list shares no prefix, cached %d", c)
	}
}
