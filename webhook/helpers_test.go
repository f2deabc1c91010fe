package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/stretchr/testify/require"
)

var secret = []byte("It's a Secret to Everybody")

// The example payloads' repository.
const owner, repo = "Codertocat", "Hello-World"

// recorder is the workflow's side of the port: it records what it is given.
type recorder struct {
	mu     sync.Mutex
	keys   map[string]bool
	events []workflow.Event
	fail   error
}

// Accept is the Intake of *workflow.Engine in memory, with its contract:
// the first key already recorded is returned and nothing is written;
// otherwise every key and the event are recorded together, or nothing when
// fail is set.
func (r *recorder) Accept(_ context.Context, keys []string, ev workflow.Event) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		if r.keys[k] {
			return k, nil
		}
	}
	if r.fail != nil {
		return "", r.fail
	}
	if r.keys == nil {
		r.keys = map[string]bool{}
	}
	for _, k := range keys {
		r.keys[k] = true
	}
	r.events = append(r.events, ev)
	return "", nil
}

// Recorded is the Intake's read-only look.
func (r *recorder) Recorded(_ context.Context, keys []string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		if r.keys[k] {
			return k, nil
		}
	}
	return "", nil
}

// has reports whether key was recorded.
func (r *recorder) has(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[key]
}

func (r *recorder) got() []workflow.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]workflow.Event(nil), r.events...)
}

// rig is the real handler behind a loopback server, authorising through the
// real ghapp client against the fake GitHub.
type rig struct {
	t    testing.TB
	gh   *ghtest.Server
	disp *recorder
	url  string
	seq  atomic.Int64
	bot  string
}

func newRig(t testing.TB, maxBody int64) *rig { return newRigWith(t, maxBody, nil) }

// newRigWith is newRig with edit applied to the handler's options.
func newRigWith(t testing.TB, maxBody int64, edit func(*Options)) *rig {
	gh := ghtest.New(t, ghtest.Options{})
	gh.AddRepo(ghtest.Repo{Owner: owner, Name: repo, DefaultBranch: "main"})
	gh.SetPermission(owner, repo, "Codertocat", "admin")

	r := &rig{t: t, gh: gh, disp: &recorder{}, bot: gh.BotLogin()}
	opts := Options{Secret: secret, MaxBody: maxBody, Intake: r.disp,
		BotLogin: gh.BotLogin(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if edit != nil {
		edit(&opts)
	}
	h, err := New(opts)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// payload loads testdata/NAME.json (a real example delivery) as a tree the
// test edits, pointed at the fake's installation.
func payload(t testing.TB, name string, installation int64) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".json")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	set(m, "installation.id", installation)
	return m
}

// set assigns a dotted path in a payload tree, creating objects on the way.
func set(m map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// botUser is the App's bot as GitHub renders it in payloads.
func (r *rig) botUser() map[string]any {
	return map[string]any{"login": r.bot, "id": 99, "type": "Bot"}
}

// delivery is one signed webhook request.
type delivery struct {
	event string
	body  []byte
	id    string
	sig   string // empty: sign correctly
}

func (r *rig) newDelivery(event string, m map[string]any) delivery {
	b, err := json.Marshal(m)
	require.NoError(r.t, err)
	return delivery{event: event, body: b, id: fmt.Sprintf("d-%d", r.seq.Add(1))}
}

// send posts d and returns the status and body.
func (r *rig) send(d delivery) (int, string) {
	req, err := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(d.body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", d.id)
	sig := d.sig
	if sig == "" {
		sig = Sign(secret, d.body)
	}
	if sig != "none" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String()
}

var errQueueDown = errors.New("queue down")
