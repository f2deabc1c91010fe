package otelexport

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/issuesmith/issuesmith/session"
)

// The standard variables that turn export on (the SDK reads them, and the
// other OTEL_* variables, itself).
const (
	EndpointVar       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	TracesEndpointVar = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// Enabled reports whether the environment names an OTLP endpoint.
func Enabled() bool {
	return os.Getenv(TracesEndpointVar) != "" || os.Getenv(EndpointVar) != ""
}

// Endpoint is where traces go, without credentials or query (for /readyz
// and the log): the traces endpoint, else the endpoint with /v1/traces.
func Endpoint() string {
	raw := os.Getenv(TracesEndpointVar)
	if raw == "" {
		raw = os.Getenv(EndpointVar)
		if raw != "" {
			raw = strings.TrimSuffix(raw, "/") + "/v1/traces"
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparsable endpoint)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// Options configure an Exporter.
type Options struct {
	// Key derives the trace and span ids from session ids (see the package
	// doc); nil: a random key, for a process whose runs never resume
	// elsewhere (bot solve).
	Key []byte
	// Provider is gen_ai.provider.name ("openai" when empty: the API the
	// bot speaks).
	Provider string
	// Content adds the recorded texts (redacted before they were stored)
	// as the conventions' opt-in attributes.
	Content bool
	// Logger gets the SDK's errors (failed exports), at most one line a
	// minute; nil leaves the SDK's own handler.
	Logger *slog.Logger
	// Exporter replaces the OTLP/HTTP exporter built from the environment
	// (tests give one with their own endpoint and options).
	Exporter sdktrace.SpanExporter
}

// Exporter turns recorded sessions into traces. It is safe for concurrent
// use.
type Exporter struct {
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	ids      ids
	provider string
	content  bool

	mu       sync.Mutex
	sessions map[int64]*state
	flushMu  sync.Mutex
	flushing bool // a background flush runs
	again    bool // and another was asked meanwhile
}

// New builds the exporter: the OTLP/HTTP exporter from the standard
// environment (unless opts.Exporter), the batch span processor, the
// resource (service.name "issuesmith" unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise). It connects to nothing yet.
func New(ctx context.Context, opts Options) (*Exporter, error) {
	exp := opts.Exporter
	if exp == nil {
		var err error
		if exp, err = otlptracehttp.New(ctx); err != nil {
			return nil, fmt.Errorf("otel: OTLP/HTTP trace exporter: %w", err)
		}
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName("issuesmith")),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("otel: resource: %w", err)
	}
	key := opts.Key
	if len(key) == 0 {
		key = randomKey()
	}
	if opts.Logger != nil {
		otel.SetErrorHandler(&errorLog{log: opts.Logger})
	}
	// Every run is exported whole (OTEL_TRACES_SAMPLER does not apply): a
	// run's spans come from several processes, and a sampled-out part
	// would break its trace.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return &Exporter{tp: tp, tracer: tp.Tracer("github.com/issuesmith/issuesmith/session/otelexport",
		trace.WithSchemaURL(semconv.SchemaURL)), ids: ids{key: key},
		provider: cmpOr(opts.Provider, "openai"), content: opts.Content, sessions: map[int64]*state{}}, nil
}

// Wrap returns sink exporting what it stores (session.Options.Wrap).
func (e *Exporter) Wrap(sink session.Sink) session.Sink {
	return &Sink{next: sink, e: e}
}

// Flush sends every span ended so far, within ctx.
func (e *Exporter) Flush(ctx context.Context) error {
	return e.tp.ForceFlush(ctx)
}

// flushBound bounds a background flush (flushSoon).
const flushBound = 30 * time.Second

// flushSoon sends what is queued now, in the background: the run's root
// and each step go out as they are made, not with the next batch, so a
// process killed moments later loses only its last calls. One flush runs
// at a time; one asked meanwhile runs after it.
func (e *Exporter) flushSoon() {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	if e.flushing {
		e.again = true
		return
	}
	e.flushing = true
	go e.flushLoop()
}

func (e *Exporter) flushLoop() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), flushBound)
		if err := e.tp.ForceFlush(ctx); err != nil {
			otel.Handle(err)
		}
		cancel()
		e.flushMu.Lock()
		if !e.again {
			e.flushing = false
			e.flushMu.Unlock()
			return
		}
		e.again = false
		e.flushMu.Unlock()
	}
}

// Shutdown ends the steps still open (the process is stopping: they resume
// in the next one, as a new attempt), then flushes and stops the exporter
// within ctx.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	for _, s := range e.sessions {
		e.leaveStep(s, "the process stopped during the step")
	}
	e.mu.Unlock()
	if err := e.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("otel: flush traces: %w", err)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
