package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/webhook"
)

// TestRedeliverCommand: `bot redeliver --since 2h` with bot serve's settings
// asks the fake GitHub to redeliver the one delivery that failed and is not
// in the database, and says so.
func TestRedeliverCommand(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	dir := t.TempDir()
	key := filepath.Join(dir, "app.pem")
	require.NoError(t, os.WriteFile(key, gh.PrivateKey(), 0o600))
	db := filepath.Join(dir, "issuesmith.db")
	st, err := store.Open(t.Context(), db)
	require.NoError(t, err)
	_, err = st.Migrate(t.Context())
	require.NoError(t, err)
	_, err = st.RecordDelivery(t.Context(), webhook.IDKey("recorded-guid"), "issues")
	require.NoError(t, err)
	require.NoError(t, st.Close())
	now := time.Now()
	gh.LogDelivery(ghtest.HookAttempt{GUID: "old-guid", Event: "issues", Status: 503, DeliveredAt: now.Add(-3 * time.Hour)})
	gh.LogDelivery(ghtest.HookAttempt{GUID: "recorded-guid", Event: "issues", Status: 503, DeliveredAt: now.Add(-time.Hour)})
	gh.LogDelivery(ghtest.HookAttempt{GUID: "missed-guid", Event: "issues", Status: 503, DeliveredAt: now.Add(-30 * time.Minute)})
	gh.LogDelivery(ghtest.HookAttempt{GUID: "fine-guid", Event: "issues", Status: 202, DeliveredAt: now.Add(-10 * time.Minute)})
	environ := func() []string {
		return []string{"ISSUESMITH_APP_ID=" + strconv.FormatInt(gh.AppID(), 10), "ISSUESMITH_PRIVATE_KEY_FILE=" + key,
			"ISSUESMITH_WEBHOOK_SECRET=s", "ISSUESMITH_GITHUB_URL=" + gh.URL(), "ISSUESMITH_BOT_LOGIN=" + gh.BotLogin(),
			"ISSUESMITH_DATABASE_URL=" + db, "ISSUESMITH_DATA_DIR=" + filepath.Join(dir, "data"),
			"ISSUESMITH_MODEL_BASE_URL=http://127.0.0.1:1/v1", "ISSUESMITH_MODEL_NAME=m"}
	}
	out, errOut, err := execCmd(t, newRedeliverCmdWith(environ), "", "--since", "2h")
	require.NoError(t, err, errOut)
	assert.Equal(t, []string{"missed-guid"}, gh.Redeliveries())
	assert.True(t, strings.Contains(out, "redelivery asked: 1 (missed-guid)") &&
		strings.Contains(out, "failed deliveries: 2 (already recorded: 1)"), out)
}
