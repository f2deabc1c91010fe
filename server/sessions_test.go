package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// Without a public URL or OAuth credentials the sessions page is off:
// /sessions answers 404 saying why and /readyz says it in one line; with
// them, /sessions is the sign-in page.
func TestSessionsPageOnAndOff(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	model := llmtest.NewServer(t, nil, llmtest.WithModels("test-model"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	get := func(srv *Server, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		srv.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}

	srv, err := New(t.Context(), startEnv(t, gh, gh.PrivateKey(), model.URL()), log, Tuning{})
	require.NoError(t, err)
	srv.ready.Store(true)
	rec := get(srv, "/readyz")
	lines := strings.Split(rec.Body.String(), "\n")
	require.Equal(t, "ready", lines[0])
	require.Contains(t, lines, "warning: sessions page off: set ISSUESMITH_PUBLIC_URL and ISSUESMITH_OAUTH_CLIENT_ID and ISSUESMITH_OAUTH_CLIENT_SECRET",
		"one line says why the page is off")
	rec = get(srv, "/sessions")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), "sessions page off")
	srv.Close()

	id, secret := gh.OAuthClient()
	srv, err = New(t.Context(), startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_PUBLIC_URL=https://bot.example",
		"ISSUESMITH_OAUTH_CLIENT_ID="+id, "ISSUESMITH_OAUTH_CLIENT_SECRET="+secret), log, Tuning{})
	require.NoError(t, err)
	defer srv.Close()
	srv.ready.Store(true)
	require.NotContains(t, get(srv, "/readyz").Body.String(), "sessions page off")
	rec = get(srv, "/sessions")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), "Sign in with GitHub")
	rec = get(srv, "/sessions/login")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.True(t, strings.HasPrefix(rec.Header().Get("Location"), strings.TrimSuffix(gh.URL(), "/")+"/login/oauth/authorize?"))
	require.Contains(t, rec.Header().Get("Location"), "redirect_uri=https%3A%2F%2Fbot.example%2Fsessions%2Fcallback")
}

// The server's recorders redact the secrets it holds by value, whatever
// their shape, and keep the configured bound.
func TestSessionOptionsRedactTheServersSecrets(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	model := llmtest.NewServer(t, nil, llmtest.WithModels("test-model"))
	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_MODEL_API_KEY=plainmodelkey",
		"ISSUESMITH_SESSIONS_MAX_BYTES=300000", "ISSUESMITH_WEBHOOK_SECRET=hooksecretvalue")
	srv, err := New(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), Tuning{})
	require.NoError(t, err)
	defer srv.Close()
	require.Equal(t, int64(300000), srv.sessions.MaxBytes)
	r := session.Start(t.Context(), srv.store(), store.Session{Owner: "o", Repo: "r", Issue: 1}, srv.sessions)
	r.Check(t.Context(), session.Check{Name: "env", Output: "KEY plainmodelkey HOOK " + cfg.WebhookSecret + "-x"}, 0)
	rec, err := session.Load(t.Context(), srv.store(), r.ID())
	require.NoError(t, err)
	out := rec.Events[0].Check.Output
	require.NotContains(t, out, "plainmodelkey")
	require.Equal(t, "KEY [redacted] HOOK [redacted]-x", out)
}
