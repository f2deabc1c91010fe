package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

// TestServeRedeliversMissedDeliveries: a delivery GitHub's log shows as
// failed (503, as during a database outage) and that the database never
// recorded is asked for again by bot serve's periodic reconciliation; the
// fake GitHub resends it to /webhook, the server handles it, and later
// passes do not ask for it again.
func TestServeRedeliversMissedDeliveries(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "http://127.0.0.1:1/v1")
	e.env = append(e.env, "ISSUESMITH_REDELIVER=@every 1s")
	e.gh.SetWebhook("http://"+e.addr+"/webhook", []byte(e2eSecret))
	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "pull_request.closed.json"))
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(raw, &p))
	p["installation"] = map[string]any{"id": e.gh.Installation()}
	obj(obj(p, "pull_request"), "user")["login"] = e.gh.BotLogin()
	obj(p, "sender")["login"] = e2eUser
	body, err := json.Marshal(p)
	require.NoError(t, err)
	e.gh.LogDelivery(ghtest.HookAttempt{GUID: "missed-during-outage", Event: "pull_request", Action: "closed",
		Status: 503, DeliveredAt: time.Now().Add(-10 * time.Minute), Payload: body})

	e.start()
	e.await(30*time.Second, func() bool {
		for _, a := range e.gh.DeliveryLog() {
			if a.GUID == "missed-during-outage" && a.Redelivery && a.Status == 202 {
				return true
			}
		}
		return false
	}, "the missed delivery was not redelivered and answered")
	require.Contains(t, e.get("/metrics"), `issuesmith_webhook_deliveries_total{event="pull_request",result="dispatched"} 1`)
	// Passes run every second, each reading the delivery log: three more
	// find it recovered.
	const logRead = "GET /app/hook/deliveries"
	passes := e.gh.Calls(logRead)
	e.await(30*time.Second, func() bool { return e.gh.Calls(logRead) >= passes+3 }, "no three more reconciliation passes")
	require.Equal(t, []string{"missed-during-outage"}, e.gh.Redeliveries())
	metrics := e.get("/metrics")
	require.Contains(t, metrics, "issuesmith_redeliveries_asked_total 1")
	require.Contains(t, metrics, `issuesmith_redeliver_last_pass{what="recovered"} 1`)
}
