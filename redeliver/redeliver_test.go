package redeliver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/redeliver"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

var secret = []byte("redeliver-secret")

// intake is the production Intake's transaction on the real store (the
// delivery's keys and its intake job together), counting the deliveries
// it accepted.
type intake struct {
	st  *store.Store
	q   *store.Queue
	mu  sync.Mutex
	got []string
}

func (c *intake) Accept(ctx context.Context, keys []string, ev workflow.Event) (string, error) {
	dup, err := c.q.Accept(ctx, ev.GitHubEvent, keys, workflow.IntakeArgs{Event: ev}, nil)
	if err == nil && dup == "" {
		c.mu.Lock()
		c.got = append(c.got, ev.Delivery)
		c.mu.Unlock()
	}
	return dup, err
}

func (c *intake) Recorded(ctx context.Context, keys []string) (string, error) {
	return c.st.FirstRecorded(ctx, keys)
}

func (c *intake) deliveries() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

// TestPassRedeliversMissedDeliveries: the fake GitHub's delivery log holds
// one delivery handled (202, recorded), two that failed and were never
// recorded (503 during an outage; no answer at all), one that failed but
// is recorded, one that failed and then succeeded, one refused 401 and one
// that failed as often as allowed. A pass asks GitHub
// to redeliver exactly the two missed ones, oldest first; the fake resends
// them to the real handler on the real store, which hands each to the
// workflow once (its intake job queued); a second pass asks nothing.
func TestPassRedeliversMissedDeliveries(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	gh.AddRepo(ghtest.Repo{Owner: "Codertocat", Name: "Hello-World", DefaultBranch: "main"})
	gh.SetPermission("Codertocat", "Hello-World", "Codertocat", "admin")
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: gh.AppID(), PrivateKey: gh.PrivateKey(), BaseURL: gh.URL(),
		BotLogin: gh.BotLogin(), WriteInterval: -1, MaxRetries: 1, Backoff: time.Millisecond, MaxWait: time.Second})
	require.NoError(t, err)
	st := storetest.SQLite(t)
	q, err := st.NewQueue(store.QueueOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	cons := &intake{st: st, q: q}
	h, err := webhook.New(webhook.Options{Secret: secret, Intake: cons,
		BotLogin: gh.BotLogin(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	gh.SetWebhook(srv.URL, secret)

	base := time.Now().Add(-time.Hour).Truncate(time.Second) // the log has second precision
	body := func(label string) []byte {
		raw, err := os.ReadFile("../webhook/testdata/issues.labeled.json")
		require.NoError(t, err)
		var p map[string]any
		require.NoError(t, json.Unmarshal(raw, &p))
		p["installation"] = map[string]any{"id": gh.Installation()}
		p["label"].(map[string]any)["name"] = label // distinct bodies: the body key differs
		b, err := json.Marshal(p)
		require.NoError(t, err)
		return b
	}
	logAt := func(guid string, status int, minutes int) {
		gh.LogDelivery(ghtest.HookAttempt{GUID: guid, Event: "issues", Action: "labeled", Status: status,
			DeliveredAt: base.Add(time.Duration(minutes) * time.Minute), Payload: body(guid)})
	}
	ctx := t.Context()
	_, err = st.RecordDelivery(ctx, webhook.IDKey("handled"), "issues")
	require.NoError(t, err)
	_, err = st.RecordDelivery(ctx, webhook.IDKey("failed-but-recorded"), "issues")
	require.NoError(t, err)
	logAt("too-old", 503, -120) // the log is in time order
	logAt("handled", 202, 1)
	logAt("outage", 503, 2)
	logAt("unreachable", 0, 3)
	logAt("failed-but-recorded", 503, 4)
	logAt("recovered", 503, 5)
	logAt("recovered", 202, 6)
	logAt("forged", 401, 7)
	logAt("hopeless", 503, 8)
	logAt("hopeless", 503, 9)

	opts := redeliver.Options{Since: base, Pause: time.Millisecond, MaxAttempts: 2}
	rep, err := redeliver.Pass(ctx, app, st, opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"outage", "unreachable"}, rep.Asked)
	assert.Equal(t, 5, rep.Failed)
	assert.Equal(t, 1, rep.Refused, "a 401 is not asked again")
	assert.Equal(t, 1, rep.GivenUp, "two failed attempts reach MaxAttempts 2")
	assert.Equal(t, 1, rep.Recorded)
	assert.Equal(t, 1, rep.Recovered)
	assert.Equal(t, []string{"outage", "unreachable"}, gh.Redeliveries())

	// The fake resends in the background and logs each attempt once the
	// App answered it: with both in the log, both reached the App.
	require.True(t, gh.Wait(10*time.Second, func() bool { return len(gh.DeliveryLog()) == 12 }), "the redeliveries were not logged")
	assert.ElementsMatch(t, []string{"outage", "unreachable"}, cons.deliveries())

	// The redeliveries are in the log now, answered 202: nothing more to do.
	rep, err = redeliver.Pass(ctx, app, st, opts)
	require.NoError(t, err)
	assert.Empty(t, rep.Asked)
	assert.Equal(t, 3, rep.Recovered)
	assert.Len(t, cons.deliveries(), 2, "a delivery was handled twice")
}

// TestPassIsBounded: with more missed deliveries than Max, a pass asks Max
// of them (oldest first) and defers the rest; the log is paged.
func TestPassIsBounded(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: gh.AppID(), PrivateKey: gh.PrivateKey(), BaseURL: gh.URL(),
		BotLogin: gh.BotLogin(), WriteInterval: -1, MaxRetries: 1, Backoff: time.Millisecond, MaxWait: time.Second})
	require.NoError(t, err)
	st := storetest.SQLite(t)
	base := time.Now().Add(-time.Hour).Truncate(time.Second) // the log has second precision
	for i := range 250 {
		gh.LogDelivery(ghtest.HookAttempt{GUID: "g" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Event: "issues",
			Status: 503, DeliveredAt: base.Add(time.Duration(i) * time.Second), Payload: []byte("{}")})
	}
	rep, err := redeliver.Pass(t.Context(), app, st, redeliver.Options{Since: base, Max: 5, Pause: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, 250, rep.Attempts, "every page of the log was read")
	assert.Equal(t, []string{"gaa", "gab", "gac", "gad", "gae"}, rep.Asked)
	assert.Equal(t, 245, rep.Deferred)
}

// TestPassIsSizedToWhatFailed: without Max a pass reads the whole window
// (no count limit: 6,000 attempts, over the 5,000 a pass used to stop at)
// and asks for every missed delivery in it, oldest first; with a deadline
// near it stops asking and defers the rest instead of being cancelled.
func TestPassIsSizedToWhatFailed(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: gh.AppID(), PrivateKey: gh.PrivateKey(), BaseURL: gh.URL(),
		BotLogin: gh.BotLogin(), WriteInterval: -1, MaxRetries: 1, Backoff: time.Millisecond, MaxWait: time.Second})
	require.NoError(t, err)
	st := storetest.SQLite(t)
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := range 6000 {
		status := 202
		if i < 40 { // the oldest attempts failed: a scan of the newest 5,000 would not see them
			status = 503
		}
		gh.LogDelivery(ghtest.HookAttempt{GUID: fmt.Sprintf("g%04d", i), Event: "issues", Status: status,
			DeliveredAt: base.Add(time.Duration(i) * 500 * time.Millisecond), Payload: []byte("{}")})
	}
	rep, err := redeliver.Pass(t.Context(), app, st, redeliver.Options{Since: base, Pause: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, 6000, rep.Attempts, "the whole window was read")
	require.Len(t, rep.Asked, 40, "every missed delivery was asked")
	assert.Equal(t, "g0000", rep.Asked[0])
	assert.Zero(t, rep.Deferred)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second+500*time.Millisecond)
	defer cancel()
	rep, err = redeliver.Pass(ctx, app, st, redeliver.Options{Since: base, Pause: 200 * time.Millisecond})
	require.NoError(t, err, "a pass near its deadline ends with a report")
	assert.Less(t, len(rep.Asked), 40)
	assert.Equal(t, 40, len(rep.Asked)+rep.Deferred, "what it had no time for is deferred")
}
