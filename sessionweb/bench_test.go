package sessionweb

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// Time to first byte of /sessions/{id} for a session at its 2 MB bound
// (explorer steps with 16 KB tool results, the oldest shrunk; edits with
// diffs; checks), as an operator (no GitHub call), on SQLite:
//
//	go test ./sessionweb -run '^$' -bench Detail -benchtime 50x
//
// It reports ttfb-ms and the page's size.
func BenchmarkDetailOfTheLargestSession(b *testing.B) {
	st := storetest.SQLite(b)
	id := fillSession(b, st)
	h, err := New(Options{Store: st, PublicURL: "https://bot.example", GitHubURL: "http://127.0.0.1:1/", ClientID: "x",
		ClientSecret: "y", Secret: []byte("a server secret of enough bytes"), Operators: []string{"root"}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	val, err := h.seal.seal(signInCookie, signIn{Login: "root", Token: "t", Expires: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	sess, _ := st.Session(b.Context(), id)
	var ttfb time.Duration
	var size int
	for b.Loop() {
		var first time.Time
		start := time.Now()
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotFirstResponseByte: func() { first = time.Now() }})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sessions/"+strconv.FormatInt(id, 10), nil)
		req.AddCookie(&http.Cookie{Name: signInCookie, Value: val})
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("GET: %v %v", err, resp)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ttfb += first.Sub(start)
		size = int(n)
	}
	b.ReportMetric(float64(ttfb.Milliseconds())/float64(b.N), "ttfb-ms")
	b.ReportMetric(float64(size)/1e6, "page-MB")
	b.ReportMetric(float64(sess.Bytes)/1e6, "session-MB")
}

// fillSession records explorer steps, edits and checks until the session
// reaches its bound.
func fillSession(b *testing.B, st *store.Store) int64 {
	ctx := b.Context()
	r := session.Start(ctx, st, store.Session{InstallationID: 1, Owner: "acme", Repo: "web", Issue: 1}, session.Options{})
	big := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) { /* ... */ }\n", 260)
	tool := r.Tool(llm.NewTool("read_file", "Read.", func(context.Context, struct{ Path string }) (llm.ToolResult, error) {
		return llm.ToolResult{Content: big}, nil
	}))
	m := r.Model(replyModel{strings.Repeat("Reading the handler next. ", 40)})
	msgs := []llm.Message{{Role: llm.System, Content: "You are the explorer."}, {Role: llm.User, Content: "Fix it."}}
	for i := 0; i < 400; i++ {
		r.Begin(ctx, session.StageExplore, "step "+strconv.Itoa(i))
		resp, _ := m.Chat(ctx, llm.Request{Role: llm.RoleExplorer, Messages: msgs})
		res, _ := tool.Call(ctx, json.RawMessage(`{"path":"server/handler.go"}`))
		msgs = append(msgs, resp.Message, llm.Message{Role: llm.ToolRole, Content: res.Content})
		r.Edit(ctx, session.Edit{Path: "handler.go", Applied: true, Diff: "@@ -1 +1 @@\n-old\n+new\n"})
		r.Check(ctx, session.Check{Name: "go vet", OK: i%3 != 0, Output: big[:2000]}, time.Second)
		r.Finish(ctx)
	}
	r.End(ctx, store.StateDone)
	return r.ID()
}
