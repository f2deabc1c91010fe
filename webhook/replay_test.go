package webhook

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayedBodyUnderNewIDIsIgnored: the signature covers only the body,
// so a captured signed delivery resent with a fresh X-GitHub-Delivery must
// not run the work again, and the answer says why.
func TestReplayedBodyUnderNewIDIsIgnored(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	d := r.newDelivery("issues", payload(t, "issues.labeled", r.gh.Installation()))
	code, body := r.send(d)
	require.Equal(t, http.StatusAccepted, code, body)

	replay := d
	replay.id = "attacker-fresh-id"
	code, body = r.send(replay)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, ResultDuplicate)
	assert.Contains(t, body, "payload already handled under another delivery id")
	assert.Len(t, r.disp.got(), 1, "the replay is not dispatched")
	assert.Zero(t, r.gh.Calls(permOp), "no API call at all")

	code, body = r.send(d)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "delivery id already handled", "a repeated id says so")

	other := r.newDelivery("issues", payload(t, "issues.unlabeled", r.gh.Installation()))
	code, body = r.send(other)
	assert.Equal(t, http.StatusAccepted, code, body)
	assert.Len(t, r.disp.got(), 2, "a different body is handled")
}

// TestFailureRecordsNothing: after an intake failure (the database) GitHub
// redelivers with the same id and body; neither key was recorded, so it is
// handled once, and a replay of it under yet another id afterwards is still
// ignored.
func TestFailureRecordsNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	r.disp.fail = errQueueDown
	d := r.newDelivery("issues", payload(t, "issues.labeled", r.gh.Installation()))
	code, _ := r.send(d)
	require.Equal(t, http.StatusServiceUnavailable, code)
	r.disp.mu.Lock()
	r.disp.fail = nil
	r.disp.mu.Unlock()

	code, body := r.send(d)
	assert.Equal(t, http.StatusAccepted, code, body)
	assert.Len(t, r.disp.got(), 1)

	replay := d
	replay.id = "later-replay"
	code, body = r.send(replay)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, ResultDuplicate)
	assert.Len(t, r.disp.got(), 1)
}
