package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// With the App and a Gitea server, each forge has its page: GitHub's at
// /sessions, Gitea's at /gitea-sessions (signed in with Gitea, its own
// callback); the progress comment's /sessions link of a Gitea run is sent
// on to the Gitea page. Served alone, Gitea's page is /sessions.
func TestSessionsPagePerForge(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	id, secret := gh.OAuthClient()
	st := storetest.SQLite(t)
	r := session.Start(t.Context(), st, store.Session{InstallationID: GiteaInstallation, Owner: "o", Repo: "r", Issue: 1},
		session.Options{})
	giteaRun := strconv.FormatInt(r.ID(), 10)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "gitea.token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o600))
	giteaEnv := []string{"ISSUESMITH_GITEA_URL=https://gitea.example/", "ISSUESMITH_GITEA_TOKEN_FILE=" + tokenFile,
		"ISSUESMITH_GITEA_WEBHOOK_SECRET=g", "ISSUESMITH_PUBLIC_URL=https://bot.example",
		"ISSUESMITH_SESSIONS_GITEA_CLIENT_ID=gitea-app", "ISSUESMITH_SESSIONS_GITEA_CLIENT_SECRET=gitea-secret"}
	mount := func(cfg *config.Server) (http.Handler, []string) {
		pages, off, err := sessionsPages(cfg, st, log)
		require.NoError(t, err)
		mux := http.NewServeMux()
		var bases []string
		for _, p := range pages {
			mux.Handle(p.base, p.h)
			mux.Handle(p.base+"/", p.h)
			bases = append(bases, p.base)
		}
		require.Empty(t, off)
		return mux, bases
	}
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}

	both := startEnv(t, gh, gh.PrivateKey(), "http://127.0.0.1:1/", append(giteaEnv,
		"ISSUESMITH_OAUTH_CLIENT_ID="+id, "ISSUESMITH_OAUTH_CLIENT_SECRET="+secret)...)
	h, bases := mount(both)
	require.Equal(t, []string{"/sessions", "/gitea-sessions"}, bases)
	require.Contains(t, get(h, "/sessions").Body.String(), "Sign in with GitHub")
	rec := get(h, "/gitea-sessions")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), "Sign in with Gitea")
	rec = get(h, "/gitea-sessions/login")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	loc := rec.Header().Get("Location")
	require.True(t, strings.HasPrefix(loc, "https://gitea.example/login/oauth/authorize?"), loc)
	for _, want := range []string{"client_id=gitea-app", "redirect_uri=https%3A%2F%2Fbot.example%2Fgitea-sessions%2Fcallback",
		"code_challenge_method=S256", "scope=read%3Auser+read%3Arepository"} {
		require.Contains(t, loc, want)
	}
	rec = get(h, "/sessions/"+giteaRun)
	require.Equal(t, http.StatusSeeOther, rec.Code, "the progress comment's link of a Gitea run")
	require.Equal(t, "/gitea-sessions/"+giteaRun, rec.Header().Get("Location"))
	require.Equal(t, "https://bot.example", runSessions(both, session.Options{}).PageURL)

	alone, err := config.ParseServer(append([]string{"ISSUESMITH_MODEL_NAME=m", "ISSUESMITH_MODEL_BASE_URL=http://127.0.0.1:1/",
		"ISSUESMITH_STATE_DIR=" + dir}, giteaEnv...))
	require.NoError(t, err)
	h, bases = mount(alone)
	require.Equal(t, []string{"/sessions"}, bases)
	require.Contains(t, get(h, "/sessions").Body.String(), "Sign in with Gitea")
	rec = get(h, "/sessions/login")
	require.Contains(t, rec.Header().Get("Location"), "redirect_uri=https%3A%2F%2Fbot.example%2Fsessions%2Fcallback")
	require.Equal(t, http.StatusUnauthorized, get(h, "/sessions/"+giteaRun).Code, "its own run: sign in")
	require.Equal(t, "https://bot.example", runSessions(alone, session.Options{}).PageURL)
}
