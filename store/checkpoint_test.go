package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// SQLite's writes never checkpoint on the store's connection: the store's
// own checkpointer copies the log into the database file in the
// background while it is open.
func TestSQLiteCheckpointsInTheBackground(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Migrate(t.Context())
	require.NoError(t, err)
	var auto int
	require.NoError(t, s.DB().QueryRowContext(t.Context(), "PRAGMA wal_autocheckpoint").Scan(&auto))
	require.Zero(t, auto, "the writer's connection does not checkpoint")
	size := func() int64 {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		return fi.Size()
	}
	before := size()
	for i := range 2000 {
		_, err := s.RecordDelivery(t.Context(), fmt.Sprintf("id:%d-%s", i, strings.Repeat("k", 200)), "issues")
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return size() > before+200_000 }, 10*time.Second, 20*time.Millisecond,
		"the log was never copied into the database file")
}
