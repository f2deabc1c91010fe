package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
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
	srv, err := New(ctx, cfg, log, Tuning{StartTimeout: 500 * time.Millisecond})
	if srv != nil {
		srv.Close()
	}
	require.ErrorContains(t, err, "check the App's key with GitHub (GET /app; check ISSUESMITH_APP_ID and the private key)")
	require.ErrorContains(t, err, "start-up took longer than 500ms")
	require.Less(t, time.Since(start), 10*time.Second)
}

// startEnv is a server configuration against gh and the model at modelURL.
func startEnv(t *testing.T, gh *ghtest.Server, key []byte, modelURL string, extra ...string) *config.Server {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	require.NoError(t, os.WriteFile(keyFile, key, 0o600))
	cfg, err := config.ParseServer(append([]string{
		"ISSUESMITH_APP_ID=" + strconv.FormatInt(gh.AppID(), 10), "ISSUESMITH_PRIVATE_KEY_FILE=" + keyFile,
		"ISSUESMITH_WEBHOOK_SECRET=s", "ISSUESMITH_MODEL_NAME=test-model", "ISSUESMITH_MODEL_BASE_URL=" + modelURL,
		"ISSUESMITH_GITHUB_URL=" + gh.URL(), "ISSUESMITH_STATE_DIR=" + dir,
	}, extra...))
	require.NoError(t, err)
	return cfg
}

// A key GitHub refuses stops the start even with ISSUESMITH_BOT_LOGIN set
// (before, the bot never called GitHub then and answered healthy), and so
// does a bot login that is not this App's.
func TestServeStartChecksTheAppKey(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	// GitHub's answer to a JWT signed with a key it does not know.
	gh.Inject(ghtest.Fault{Op: "GET /app", Status: 401,
		Body: `{"message":"A JSON web token could not be decoded","documentation_url":"https://docs.github.com/rest","status":"401"}`})
	model := llmtest.NewServer(t, nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_BOT_LOGIN="+gh.BotLogin())
	srv, err := New(t.Context(), cfg, log, Tuning{})
	require.Nil(t, srv)
	require.ErrorContains(t, err, "check the App's key with GitHub (GET /app")
	require.ErrorContains(t, err, "A JSON web token could not be decoded")

	cfg = startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_BOT_LOGIN=someone-else[bot]")
	srv, err = New(t.Context(), cfg, log, Tuning{})
	require.Nil(t, srv)
	require.ErrorContains(t, err, `ISSUESMITH_BOT_LOGIN is "someone-else[bot]" but GitHub says this App's bot is "`+gh.BotLogin()+`"`)
}

// A model name the model server does not list is a loud warning at
// start-up and shows on /readyz; a listed one leaves /readyz plain.
func TestServeStartWarnsAboutAnUnknownModel(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	for _, tc := range []struct {
		listed []string
		want   string
	}{
		{[]string{"test-model"}, "ready\n"},
		{[]string{"gpt-4.1", "gpt-4.1-mini"}, "ready\nwarning: model check: model not listed by the server: explorer \"test-model\" (setting model)"},
	} {
		model := llmtest.NewServer(t, nil, llmtest.WithModels(tc.listed...))
		var logs bytes.Buffer
		cfg := startEnv(t, gh, gh.PrivateKey(), model.URL())
		srv, err := New(t.Context(), cfg, slog.New(slog.NewTextHandler(&logs, nil)), Tuning{})
		require.NoError(t, err)
		srv.ready.Store(true)
		rec := httptest.NewRecorder()
		srv.readyz(rec, httptest.NewRequest("GET", "/readyz", nil))
		srv.Close()
		require.Equal(t, 200, rec.Code)
		require.True(t, strings.HasPrefix(rec.Body.String(), tc.want), rec.Body.String())
		if len(tc.listed) > 1 {
			require.Contains(t, logs.String(), "MODEL CHECK FAILED")
		}
	}
}

// A database that does not answer does not stop the start: New returns the
// server and /readyz says what it waits for. A DSN that can never work
// (a PostgreSQL URL that does not parse) still stops it.
func TestServeStartWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	model := llmtest.NewServer(t, nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_DATABASE_URL=postgres://u:p@127.0.0.1:notaport/db")
	srv, err := New(t.Context(), cfg, log, Tuning{})
	require.Nil(t, srv)
	require.ErrorContains(t, err, "open postgres")

	blocker := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	cfg = startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_DATABASE_URL="+filepath.Join(blocker, "issuesmith.db"))
	srv, err = New(t.Context(), cfg, log, Tuning{})
	require.NoError(t, err)
	defer srv.Close()
	require.Nil(t, srv.engine())
	rec := httptest.NewRecorder()
	srv.readyz(rec, httptest.NewRequest("GET", "/readyz", nil))
	require.Equal(t, 503, rec.Code)
	require.Contains(t, rec.Body.String(), "waiting for the database: open sqlite")
}
