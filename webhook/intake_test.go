package webhook

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/workflow"
)

// storeIntake is the Intake of *workflow.Engine without the engine: the
// real store's one-transaction Accept with the engine's intake job.
type storeIntake struct {
	q  *store.Queue
	st *store.Store
}

func (s storeIntake) Accept(ctx context.Context, keys []string, ev workflow.Event) (string, error) {
	return s.q.Accept(ctx, ev.GitHubEvent, keys, workflow.IntakeArgs{Event: ev}, nil)
}

// TestIntakeRecordsAndQueuesTogether: through the real handler and store,
// an accepted delivery has its id key, its body key and one intake job; a
// repeated id and a replayed body are duplicates that write nothing; when
// the database fails the answer is 503 and the delivery is not recorded, so
// its redelivery is accepted.
func TestIntakeRecordsAndQueuesTogether(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	st := storetest.SQLite(t)
	q, err := st.NewQueue(store.QueueOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)

	broken := storetest.SQLite(t)
	bq, err := broken.NewQueue(store.QueueOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NoError(t, broken.Close())
	serve := func(in Intake) string {
		h, err := New(Options{Secret: secret, Intake: in, BotLogin: r.gh.BotLogin(),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	good, bad := serve(storeIntake{q, st}), serve(storeIntake{bq, broken})
	send := func(url string, d delivery) int {
		r.url = url
		code, _ := r.send(d)
		return code
	}
	m := payload(t, "issues.labeled", r.gh.Installation())
	d := r.newDelivery("issues", m)

	assert.Equal(t, http.StatusServiceUnavailable, send(bad, d), "database down")
	has := func(k string) bool {
		ok, err := st.HasDelivery(t.Context(), k)
		require.NoError(t, err)
		return ok
	}
	require.False(t, has(IDKey(d.id)))
	assert.Equal(t, http.StatusAccepted, send(good, d), "the redelivery after the outage")
	assert.True(t, has(IDKey(d.id)) && has(bodyKeyOf(d.body)))
	assert.Equal(t, http.StatusOK, send(good, d), "same delivery id")
	replay := d
	replay.id = "replayed-under-new-id"
	assert.Equal(t, http.StatusOK, send(good, replay), "same body, new id")
	assert.False(t, has(IDKey(replay.id)))
	jobs, err := q.Jobs(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	assert.Equal(t, "issuesmith_intake", jobs[0].Kind)
}
