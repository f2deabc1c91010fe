package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
	"github.com/issuesmith/issuesmith/server"
)

// TestServeConfigFileMaskedFromTheCoder is server/doc.go's contract "the
// coder's commands run in the sandbox with the App's key, API key and config
// file masked", attacked through the production path: the settings file
// named only by `bot serve --config` (never in the process's environment),
// parsed as serve parses it, the coder server.Coder builds from it, and a
// command under that coder's sandbox policy trying to read the file, the
// key and the database while the folder holding them is bound into the
// sandbox.
func TestServeConfigFileMaskedFromTheCoder(t *testing.T) {
	sandboxtest.Need(t)
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "app.pem")
	apiKey := filepath.Join(dir, "model.key")
	db := filepath.Join(dir, "issuesmith.db")
	settings := filepath.Join(dir, "issuesmith.env")
	giteaToken := filepath.Join(dir, "gitea-token")
	require.NoError(t, os.WriteFile(giteaToken, []byte("gitea-secret"), 0o600))
	require.NoError(t, os.WriteFile(key, []byte("-----BEGIN KEY----- key-secret"), 0o600))
	require.NoError(t, os.WriteFile(apiKey, []byte("api-secret"), 0o600))
	require.NoError(t, os.WriteFile(db, []byte("db-secret"), 0o600))
	require.NoError(t, os.WriteFile(settings, []byte(strings.Join([]string{
		"ISSUESMITH_APP_ID=1", "ISSUESMITH_MODEL_NAME=m", "ISSUESMITH_WEBHOOK_SECRET=settings-secret",
		"ISSUESMITH_PRIVATE_KEY_FILE=" + key, "ISSUESMITH_MODEL_API_KEY_FILE=" + apiKey,
		"ISSUESMITH_DATABASE_URL=" + db, "ISSUESMITH_DATA_DIR=" + filepath.Join(dir, "data"),
		"ISSUESMITH_GITEA_URL=https://gitea.example.com/", "ISSUESMITH_GITEA_TOKEN_FILE=" + giteaToken,
		"ISSUESMITH_GITEA_WEBHOOK_SECRET=settings-secret",
	}, "\n")+"\n"), 0o600))

	cfg, err := serveConfig(procenv.Scrubbed(), settings, "")
	require.NoError(t, err)
	p := server.Coder(cfg, nil, nil).Options.Sandbox
	p.ReadOnly = append(p.ReadOnly, dir) // as if the settings lay under a path the sandbox binds
	cmd, err := p.Command(t.Context(), t.TempDir(), []string{"sh", "-c",
		"cat " + strings.Join([]string{settings, key, apiKey, db, giteaToken}, " ") + "; ls " + dir + "; echo probe-done"}, os.Environ())
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // cat fails on the masked files; what it printed is the verdict
	s := out.String()
	require.Contains(t, s, "probe-done")
	require.Contains(t, s, "issuesmith.env", "the folder itself is visible: the test proves the masking")
	for _, secret := range []string{"settings-secret", "key-secret", "api-secret", "db-secret", "gitea-secret"} {
		require.NotContains(t, s, secret, "read inside the coder's sandbox")
	}
}
