package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// With OTEL_EXPORTER_OTLP_ENDPOINT set, bot solve --session also exports
// the run as one trace (sent before the command returns): the run, its
// three steps (bot solve names each step after its stage) and the model
// calls under them.
func TestSolveExportsTheSessionAsATrace(t *testing.T) {
	var mu sync.Mutex
	names := map[string]int{}
	traces := map[string]bool{}
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
					names[s.GetName()]++
					traces[hex.EncodeToString(s.GetTraceId())] = true
				}
			}
		}
	}))
	defer rcv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	dir := goodbyeTree(t)
	runGoodbye(t, dir, "--session", filepath.Join(t.TempDir(), "run.jsonl"))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, traces, 1, "%v", names)
	require.Equal(t, 1, names["run local/"+filepath.Base(dir)], "%v", names)
	for _, step := range []string{"explore", "plan", "code"} {
		require.Equal(t, 2, names[step], "%s (the step and its attempt) in %v", step, names)
	}
	require.Equal(t, 1, names["run ended: done"], "%v", names)
	require.Equal(t, 6, names["chat scripted"], "%v", names)
}
