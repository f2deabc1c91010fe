package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// With OTEL_EXPORTER_OTLP_ENDPOINT set, the server's recorders export each
// run as a trace, flushed when the server closes; /readyz names where,
// without the endpoint's credentials. Without it, nothing is exported and
// /readyz says nothing of traces.
func TestServerExportsTracesWhenTheEndpointIsSet(t *testing.T) {
	var mu sync.Mutex
	var names []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg collpb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range msg.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names = append(names, s.GetName())
				}
			}
		}
	}))
	defer rcv.Close()
	gh := ghtest.New(t, ghtest.Options{})
	model := llmtest.NewServer(t, nil, llmtest.WithModels("test-model"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	readyz := func(srv *Server) string {
		rec := httptest.NewRecorder()
		srv.ready.Store(true)
		srv.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Body.String()
	}

	srv, err := New(t.Context(), startEnv(t, gh, gh.PrivateKey(), model.URL()), log, Tuning{})
	require.NoError(t, err)
	require.NotContains(t, readyz(srv), "traces")
	require.Nil(t, srv.sessions.Wrap)
	srv.Close()

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", strings.Replace(rcv.URL, "http://", "http://collector:s3cretpass@", 1))
	srv, err = New(t.Context(), startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_OTEL_CONTENT=1"), log, Tuning{})
	require.NoError(t, err)
	ready := readyz(srv)
	require.Contains(t, ready, "traces: each run exported over OTLP/HTTP to "+rcv.URL+"/v1/traces (with the recorded texts)\n")
	require.NotContains(t, ready, "s3cretpass")
	r := session.Start(t.Context(), srv.store(), store.Session{Owner: "o", Repo: "r", Issue: 1}, srv.sessions)
	r.Begin(t.Context(), session.StageCode, "code 1")
	r.Check(t.Context(), session.Check{Name: "go build", OK: true}, 0)
	r.Finish(t.Context())
	r.End(t.Context(), store.StateDone)
	srv.Close() // flushes
	mu.Lock()
	defer mu.Unlock()
	require.ElementsMatch(t, []string{"run o/r#1", "check go build", "code 1", "code", "run ended: done"}, names)
}
