package otelexport_test

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is a loopback OTLP/HTTP trace receiver: it decodes each
// ExportTraceServiceRequest and keeps its spans.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	paths    []string
	exported chan struct{} // closed at the next export (waitFor)
}

func newReceiver(t testing.TB) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		var msg collpb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &msg)
		}
		if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "not an OTLP protobuf export", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.Path)
		for _, rs := range msg.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					r.services = append(r.services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		if r.exported != nil {
			close(r.exported)
			r.exported = nil
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&collpb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

// waitFor reports whether cond holds within timeout, checking it again at
// each export received (never on a timer).
func (r *receiver) waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		if r.exported == nil {
			r.exported = make(chan struct{})
		}
		next := r.exported
		r.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-next:
		case <-deadline:
			return cond()
		}
	}
}

// got returns the spans received so far.
func (r *receiver) got() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

func id(b []byte) string { return hex.EncodeToString(b) }

// attrs flattens a span's attributes to strings (arrays as their first
// value), ints and floats as text.
func attrs(s *tracepb.Span) map[string]any {
	m := map[string]any{}
	for _, a := range s.GetAttributes() {
		m[a.GetKey()] = value(a.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// byName returns the spans named name.
func byName(spans []*tracepb.Span, name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the single span named name.
func one(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	got := byName(spans, name)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.GetName())
		}
		t.Fatalf("want one span %q, got %d among %q", name, len(got), names)
	}
	return got[0]
}
