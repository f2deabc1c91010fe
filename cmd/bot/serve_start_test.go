package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
)

// `bot serve --help` names every variable a start without any settings
// asks for, so a newcomer learns them before the first failed start.
func TestServeHelpNamesTheRequiredVariables(t *testing.T) {
	t.Parallel()
	_, err := config.ParseServer(nil)
	require.Error(t, err)
	required := regexp.MustCompile(`ISSUESMITH_[A-Z_]+`).FindAllString(err.Error(), -1)
	require.NotEmpty(t, required)
	out, _, err := execCmd(t, newRootCmd(), "", "serve", "--help")
	require.NoError(t, err)
	for _, name := range required {
		require.Contains(t, out, name)
	}
}

// --config names the settings file and --listen wins over every other
// source of the listen address.
func TestServeFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "issuesmith.env")
	require.NoError(t, os.WriteFile(file, []byte("ISSUESMITH_APP_ID=7\nISSUESMITH_LISTEN_ADDR=:9000\n"), 0o600))
	base := []string{"ISSUESMITH_PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
		"ISSUESMITH_WEBHOOK_SECRET=s", "ISSUESMITH_MODEL_NAME=m", "HOME=" + dir, "ISSUESMITH_LISTEN_ADDR=:7000"}
	cfg, err := config.ParseServer(serveEnviron(base, file, ""))
	require.NoError(t, err)
	require.Equal(t, int64(7), cfg.AppID, "--config's file is read")
	require.Equal(t, ":7000", cfg.ListenAddr, "a real variable wins over the file")
	cfg, err = config.ParseServer(serveEnviron(base, file, "127.0.0.1:8181"))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8181", cfg.ListenAddr, "--listen wins over both")
}
