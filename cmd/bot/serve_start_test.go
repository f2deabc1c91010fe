package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

// A GitHub that accepts connections and never answers (a firewall or proxy
// swallowing requests) must not hang `bot serve`'s start-up: it fails within
// the start-up bound, naming what it was waiting for and the variable that
// skips the call.
func TestServeStartFailsFastWhenGitHubNeverAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, never answered
		}
	}()
	key := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(key, ghtest.New(t, ghtest.Options{}).PrivateKey(), 0o600))
	dir := t.TempDir()
	cfg, err := config.ParseServer([]string{
		"ISSUESMITH_APP_ID=1", "ISSUESMITH_PRIVATE_KEY_FILE=" + key, "ISSUESMITH_WEBHOOK_SECRET=s",
		"ISSUESMITH_MODEL_NAME=m", "ISSUESMITH_GITHUB_URL=http://" + ln.Addr().String() + "/",
		"ISSUESMITH_DATABASE_URL=" + filepath.Join(dir, "issuesmith.db"), "ISSUESMITH_DATA_DIR=" + filepath.Join(dir, "data"),
	})
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // the hang this test guards against
	defer cancel()
	start := time.Now()
	srv, err := newServer(ctx, cfg, log, serverTuning{startTimeout: 500 * time.Millisecond})
	if srv != nil {
		srv.close()
	}
	require.ErrorContains(t, err, "learn the App's bot login (set ISSUESMITH_BOT_LOGIN to skip)")
	require.ErrorContains(t, err, "start-up took longer than 500ms")
	require.Less(t, time.Since(start), 10*time.Second)
}

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
