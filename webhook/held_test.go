package webhook

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/spool"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/workflow"
)

// TestHeldDeliveryIsRecordedWhenTheDatabaseAnswers: through the real
// handler, store and spool, a delivery the database cannot record is held
// and answered 202; once drained into the database it has its keys and
// exactly one intake job carrying the same event, it leaves the spool, and
// its redelivery is a duplicate. A record handed twice (a drain killed
// before the removal) queues nothing more; with the spool full the answer
// is 503 as without one.
func TestHeldDeliveryIsRecordedWhenTheDatabaseAnswers(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st := storetest.SQLite(t)
	q, err := st.NewQueue(store.QueueOptions{Logger: quiet})
	require.NoError(t, err)
	broken := storetest.SQLite(t)
	bq, err := broken.NewQueue(store.QueueOptions{Logger: quiet})
	require.NoError(t, err)
	require.NoError(t, broken.Close())

	dir := filepath.Join(t.TempDir(), "held")
	sp, err := spool.Open(dir, 2)
	require.NoError(t, err)
	serve := func(in Intake, hold Holder) string {
		h, err := New(Options{Secret: secret, Intake: in, BotLogin: r.gh.BotLogin(), Logger: quiet, Hold: hold})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	down, up := serve(storeIntake{bq, broken}, sp), serve(storeIntake{q, st}, nil)
	send := func(url string, d delivery) (int, string) {
		r.url = url
		return r.send(d)
	}
	issue := 100
	labeled := func() map[string]any { // a distinct body each time
		m := payload(t, "issues.labeled", r.gh.Installation())
		issue++
		set(m, "issue.number", issue)
		return m
	}
	has := func(k string) bool {
		ok, err := st.HasDelivery(t.Context(), k)
		require.NoError(t, err)
		return ok
	}

	d := r.newDelivery("issues", labeled())
	code, body := send(down, d)
	require.Equal(t, http.StatusAccepted, code, body)
	assert.Contains(t, body, "held")
	require.Equal(t, 1, sp.Len())
	require.False(t, has(IDKey(d.id)))

	// On disk: a restarted process would find it.
	sp2, err := spool.Open(dir, 2)
	require.NoError(t, err)
	require.Equal(t, 1, sp2.Len())
	n, err := Drain(t.Context(), sp, storeIntake{q, st})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Zero(t, sp.Len())
	assert.True(t, has(IDKey(d.id)) && has(bodyKeyOf(d.body)))
	jobs, err := q.Jobs(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	var args workflow.IntakeArgs
	require.NoError(t, args.UnmarshalJSON(jobs[0].EncodedArgs))
	assert.Equal(t, d.id, args.Event.Delivery)
	assert.Equal(t, workflow.Labeled, args.Event.Kind)
	assert.Equal(t, owner, args.Event.Owner)
	assert.Equal(t, repo, args.Event.Repo)
	assert.Equal(t, "Codertocat", args.Event.Sender)
	code, body = send(up, d)
	assert.Equal(t, http.StatusOK, code, "the redelivery after the drain: %s", body)

	// Handed twice: the second is a duplicate and leaves the spool.
	d2 := r.newDelivery("issues", labeled())
	code, _ = send(down, d2)
	require.Equal(t, http.StatusAccepted, code)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	rec, err := os.ReadFile(filepath.Join(dir, ents[0].Name()))
	require.NoError(t, err)
	require.NoError(t, sp.Put(rec))
	n, err = Drain(t.Context(), sp, storeIntake{q, st})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	jobs, err = q.Jobs(t.Context(), nil)
	require.NoError(t, err)
	assert.Len(t, jobs, 2, "one job per delivery")

	// Draining while the database is still away keeps the record.
	d3 := r.newDelivery("issues", labeled())
	code, _ = send(down, d3)
	require.Equal(t, http.StatusAccepted, code)
	_, err = Drain(t.Context(), sp, storeIntake{bq, broken})
	require.Error(t, err)
	require.Equal(t, 1, sp.Len())

	// Full: 503, nothing lost silently.
	require.NoError(t, sp.Put([]byte(`{}`)))
	d4 := r.newDelivery("issues", labeled())
	code, _ = send(down, d4)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	// The garbage record is set aside, not retried; d3 is recorded.
	n, err = Drain(context.Background(), sp, storeIntake{q, st})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.True(t, has(IDKey(d3.id)))
	assert.False(t, has(IDKey(d4.id)))
	bad, err := os.ReadDir(filepath.Join(dir, "bad"))
	require.NoError(t, err)
	assert.Len(t, bad, 1)
}
