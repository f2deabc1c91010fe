package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
	"github.com/stretchr/testify/require"
)

// TestSandboxHidesSettingsAndDatabase: with the settings file named only by
// --config (it reaches config as FileVar in the parsed environment, never
// in the process's), the file, the key file and the SQLite database stay
// unreadable to a sandboxed command even when they lie under a path the
// sandbox shows (issue 33, item 6).
func TestSandboxHidesSettingsAndDatabase(t *testing.T) {
	sandboxtest.Need(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "app.pem")
	settings := filepath.Join(dir, "settings.env")
	db := filepath.Join(dir, "issuesmith.db")
	require.NoError(t, os.WriteFile(key, []byte("-----BEGIN KEY----- key-secret"), 0o600))
	require.NoError(t, os.WriteFile(db, []byte("db-secret"), 0o600))
	require.NoError(t, os.WriteFile(db+"-wal", []byte("wal-secret"), 0o600))
	require.NoError(t, os.WriteFile(settings, []byte("ISSUESMITH_WEBHOOK_SECRET=settings-secret\nISSUESMITH_PRIVATE_KEY_FILE="+key+"\n"), 0o600))
	cfg, err := config.ParseServer([]string{"ISSUESMITH_APP_ID=1", "ISSUESMITH_MODEL_NAME=m",
		"ISSUESMITH_DATABASE_URL=" + db, "ISSUESMITH_DATA_DIR=" + filepath.Join(dir, "data"), config.FileVar + "=" + settings})
	require.NoError(t, err)
	require.Equal(t, settings, cfg.File)
	p := SandboxPolicy(cfg)
	p.ReadOnly = []string{dir} // as if the settings lay under a path the sandbox binds
	cmd, err := p.Command(t.Context(), t.TempDir(), []string{"sh", "-c",
		"cat " + settings + " " + key + " " + db + " " + db + "-wal; ls " + dir + "; echo probe-done"}, os.Environ())
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	s := out.String()
	require.Contains(t, s, "probe-done")
	require.Contains(t, s, "settings.env", "the folder itself is visible: the test proves the masking")
	for _, secret := range []string{"settings-secret", "key-secret", "db-secret", "wal-secret"} {
		require.False(t, strings.Contains(s, secret), "%s read inside the sandbox:\n%s", secret, s)
	}
}
