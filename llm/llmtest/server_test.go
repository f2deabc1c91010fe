package llmtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// recorder is a testing.TB whose failures are collected instead of failing
// the real test, so the server's strictness itself can be checked.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func client(t *testing.T, url string) *llm.Client {
	c, err := llm.NewClient(llm.Config{BaseURL: url, Model: "m", Retry: llm.RetryConfig{MaxAttempts: 1}})
	require.NoError(t, err)
	return c
}

func TestUnexpectedRequestFailsAndPrintsIt(t *testing.T) {
	rec := &recorder{TB: t}
	var srv *llmtest.Server
	t.Run("inner", func(t *testing.T) {
		rec.TB = t
		srv = llmtest.NewServer(rec, llmtest.Script{
			llmtest.Reply("x").When(llmtest.Expect{Role: "planner", Last: "plan it"}),
			llmtest.Reply("never played"),
		})
		_, err := client(t, srv.URL()).Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: []llm.Message{{Role: llm.User, Content: "code it"}}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "unexpected request")
	})
	got := rec.failures()
	assert.Contains(t, got, `unexpected request #1: it does not match exchange 1: role is "coder", want "planner"`)
	assert.Contains(t, got, "user: code it", "the request is printed")
	assert.Contains(t, got, "script not finished: 0 of 2 exchanges played")
	assert.Len(t, srv.Requests(), 1)
}

func TestExtraRequestFails(t *testing.T) {
	rec := &recorder{TB: t}
	t.Run("inner", func(t *testing.T) {
		rec.TB = t
		srv := llmtest.NewServer(rec, llmtest.Script{llmtest.Reply("one")})
		c := client(t, srv.URL())
		_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "a"}}})
		require.NoError(t, err)
		_, err = c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "b"}}})
		require.Error(t, err)
		assert.Equal(t, 0, srv.Remaining())
	})
	assert.Contains(t, rec.failures(), "the script has no exchange left (all 1 played)")
}

func TestParseScriptIsStrict(t *testing.T) {
	_, err := llmtest.ParseScript([]byte("- expect: {lastt: x}\n  reply: {content: y}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lastt")

	s, err := llmtest.ParseScript([]byte(`
- faults: [{status: 429, retry_after: "1"}, {hang: 50ms}]
  reply:
    tool_calls: [{name: read_file, args: {path: a.go}}, {name: grep, args: '{"bad"'}]
`))
	require.NoError(t, err)
	require.Len(t, s, 1)
	assert.Equal(t, "1", s[0].Faults[0].RetryAfter)
	assert.Equal(t, "50ms", s[0].Faults[1].Hang.String())
}

func TestAnyOrderGroupServesConcurrentCallers(t *testing.T) {
	var script llmtest.Script
	script = append(script, llmtest.Reply("first").When(llmtest.Expect{Last: "start"}))
	var group []llmtest.Exchange
	for i := range 8 {
		group = append(group, llmtest.Reply(fmt.Sprintf("summary of f%d", i)).
			When(llmtest.Expect{Role: "summarizer", Last: fmt.Sprintf("file f%d.go", i)}))
	}
	group[3] = group[3].After(llmtest.Status(503)) // a fault inside the group
	script = append(script, llmtest.Unordered(group...)...)
	script = append(script, llmtest.Reply("last").When(llmtest.Expect{Last: "end"}))
	srv := llmtest.NewServer(t, script)
	cfg := srv.Config()
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	ask := func(role llm.Role, text string) string {
		resp, err := c.Chat(t.Context(), llm.Request{Role: role, Messages: []llm.Message{{Role: llm.User, Content: text}}})
		require.NoError(t, err)
		return resp.Message.Content
	}
	assert.Equal(t, "first", ask(llm.RoleExplorer, "start"))
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := 7; i >= 0; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = ask(llm.RoleSummarizer, fmt.Sprintf("file f%d.go", i))
		}()
	}
	wg.Wait()
	for i, g := range got {
		assert.Equal(t, fmt.Sprintf("summary of f%d", i), g)
	}
	assert.Equal(t, "last", ask(llm.RolePlanner, "end"))
	assert.Len(t, srv.Requests(), 11)
}

func TestStrictModeAnswersWithTheProvidersMessages(t *testing.T) {
	call := func(id, args string) llm.Message {
		return llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: args}}}
	}
	result := func(id string) llm.Message { return llm.Message{Role: llm.ToolRole, ToolCallID: id, Content: "x"} }
	user := llm.Message{Role: llm.User, Content: "go"}
	for _, tc := range []struct {
		name string
		msgs []llm.Message
		opts []llmtest.Option
		want string
	}{
		{"bad arguments", []llm.Message{user, call("c1", `{"path": "a`), result("c1")}, nil, "Failed to parse tool call arguments as JSON"},
		{"user after tool", []llm.Message{user, call("c1", `{}`), result("c1"), user}, nil, "Unexpected role 'user' after role 'tool'"},
		{"empty assistant", []llm.Message{user, {Role: llm.Assistant}, user}, nil, "all messages must have non-empty content"},
		{"unanswered id", []llm.Message{user, call("c1", `{}`), user}, nil, "The following tool_call_ids did not have response messages: c1"},
		{"unknown id", []llm.Message{user, call("c1", `{}`), result("c2")}, nil, "must be a response to a preceeding message with 'tool_calls'"},
		{"two users", []llm.Message{user, user}, []llmtest.Option{llmtest.WithAlternation()}, "conversation roles must alternate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			var srv *llmtest.Server
			t.Run("inner", func(t *testing.T) {
				rec.TB = t
				srv = llmtest.NewServer(rec, llmtest.Script{llmtest.Reply("ok")}, tc.opts...)
				c, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "m", Retry: llm.RetryConfig{MaxAttempts: 1}})
				require.NoError(t, err)
				// Raw wire: this test checks the server, so the request is
				// sent as is, without the client's hygiene.
				_, err = rawChat(t, srv.URL(), tc.msgs)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				_, err = c.Chat(t.Context(), llm.Request{Messages: []llm.Message{user}})
				require.NoError(t, err, "a valid request is served")
			})
			assert.Contains(t, rec.failures(), "breaks a provider's history rule (strict mode): ")
			assert.Equal(t, []string{srv.Rejected()[0]}, srv.Rejected())
			assert.Contains(t, srv.Rejected()[0], tc.want)
		})
	}
	t.Run("lenient", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok")}, llmtest.Lenient())
		_, err := rawChat(t, srv.URL(), []llm.Message{user, {Role: llm.Assistant}, user})
		require.NoError(t, err)
	})
}

func TestRepeatAndConditionalFaults(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("again").Times(2),
		llmtest.Reply("with it").After(llmtest.Fault{Status: 400, Message: "needs the secret", Unless: "SECRET"}),
	})
	c := client(t, srv.URL())
	ask := func(text string) (string, error) {
		resp, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: text}}})
		if err != nil {
			return "", err
		}
		return resp.Message.Content, nil
	}
	for range 2 {
		got, err := ask("a")
		require.NoError(t, err)
		assert.Equal(t, "again", got)
	}
	for range 2 {
		_, err := ask("without it")
		require.ErrorContains(t, err, "needs the secret", "served until a request has the text")
	}
	got, err := ask("SECRET")
	require.NoError(t, err)
	assert.Equal(t, "with it", got)
}

// rawChat posts messages as they are (no client hygiene) and returns the
// server's error message on a non-200 answer.
func rawChat(t *testing.T, url string, msgs []llm.Message) (string, error) {
	t.Helper()
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	type msg struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id,omitempty"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
	}
	var ms []msg
	for _, m := range msgs {
		om := msg{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			c := call{ID: tc.ID, Type: "function"}
			c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
			om.ToolCalls = append(om.ToolCalls, c)
		}
		ms = append(ms, om)
	}
	body, err := json.Marshal(map[string]any{"model": "m", "messages": ms})
	require.NoError(t, err)
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%d: %s", resp.StatusCode, b)
	}
	return string(b), nil
}

// TestARequestCutOffByItsClientIsNotARequest: a client that dies while
// sending (a killed process: headers and part of the body, then the
// connection closes) made no request; the server neither records it nor
// fails the test, and the script waits for the real one.
func TestARequestCutOffByItsClientIsNotARequest(t *testing.T) {
	rec := &recorder{TB: t}
	var srv *llmtest.Server
	t.Run("inner", func(t *testing.T) {
		rec.TB = t
		srv = llmtest.NewServer(rec, llmtest.Script{llmtest.Reply("one")})
		u := strings.TrimPrefix(srv.URL(), "http://")
		host, _, _ := strings.Cut(u, "/")
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		_, err = fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: 400\r\n\r\n{\"model\":\"m\",\"messages\":[{\"role\":\"us", host)
		require.NoError(t, err)
		require.NoError(t, conn.Close())
		time.Sleep(100 * time.Millisecond) // the server reads the cut body
		_, err = client(t, srv.URL()).Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "a"}}})
		require.NoError(t, err)
	})
	assert.Empty(t, rec.failures())
	assert.Len(t, srv.Requests(), 1, "only the whole request")
}

func TestAlwaysAnswersEveryLaterRequest(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("first"),
		llmtest.Reply("prose again").When(llmtest.Expect{Last: "again"}).Always(),
	})
	c := client(t, srv.URL())
	ask := func(text string) string {
		resp, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: text}}})
		require.NoError(t, err)
		return resp.Message.Content
	}
	assert.Equal(t, "first", ask("go"))
	for range 5 {
		assert.Equal(t, "prose again", ask("again"))
	}
	assert.Len(t, srv.Requests(), 6)
}
