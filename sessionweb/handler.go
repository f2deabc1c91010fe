package sessionweb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// Store is what the page reads: *store.Store.
type Store interface {
	session.Reader
	ListSessions(ctx context.Context, f store.SessionFilter) ([]*store.Session, error)
	SessionRepos(ctx context.Context) ([]string, error)
}

// Options configure the page. PublicURL, GitHubURL, ClientID, ClientSecret,
// Secret and Store are required.
type Options struct {
	Store Store
	// PublicURL is the bot's address as people reach it; the OAuth
	// callback is PublicURL + "/sessions/callback".
	PublicURL string
	// GitHubURL is GitHub's REST root (https://api.github.com/ or
	// https://HOST/api/v3/); WebURL its web root, derived from GitHubURL
	// when empty (github.com, or the Enterprise host).
	GitHubURL string
	WebURL    string
	// ClientID and ClientSecret are the App's OAuth credentials.
	ClientID, ClientSecret string
	// Secret keys the cookies (at least 16 bytes; the server passes its
	// App private key).
	Secret []byte
	// Operators see every session.
	Operators []string
	// OtherForge, when set, reports whether a session's installation is
	// another forge's than GitHub's (the Gitea server the bot also
	// serves): GitHub's word on a repository of the same name says nothing
	// about it, so only operators see such sessions.
	OtherForge func(installationID int64) bool
	// SignInTTL is how long a sign-in lasts (2h when 0); CacheTTL how
	// long GitHub's answer about a repository is trusted (5m when 0, at
	// most 5m).
	SignInTTL time.Duration
	CacheTTL  time.Duration
	// PageSize is how many sessions a list page shows (50 when 0).
	PageSize int
	// HTTPClient talks to GitHub (http.DefaultClient when nil).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Handler serves /sessions and its pages.
type Handler struct {
	opts   Options
	st     Store
	oauth  *oauth2.Config
	seal   *sealer
	secure bool
	log    *slog.Logger
	mux    *http.ServeMux
	access *accessCache
	now    func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // OAuth states already used, until they expire
}

// New checks opts and builds the page.
func New(opts Options) (*Handler, error) {
	if opts.Store == nil || opts.PublicURL == "" || opts.GitHubURL == "" || opts.ClientID == "" || opts.ClientSecret == "" {
		return nil, errors.New("sessions page: store, public URL, GitHub URL and OAuth client id and secret are required")
	}
	seal, err := newSealer(opts.Secret)
	if err != nil {
		return nil, err
	}
	web := opts.WebURL
	if web == "" {
		if web, err = WebURL(opts.GitHubURL); err != nil {
			return nil, err
		}
	}
	web = strings.TrimSuffix(web, "/")
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	opts.SignInTTL = cmp.Or(opts.SignInTTL, 2*time.Hour)
	opts.CacheTTL = min(cmp.Or(opts.CacheTTL, 5*time.Minute), 5*time.Minute)
	opts.PageSize = cmp.Or(opts.PageSize, 50)
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	h := &Handler{opts: opts, st: opts.Store, seal: seal, secure: strings.HasPrefix(opts.PublicURL, "https://"),
		log: cmp.Or(opts.Logger, slog.Default()), access: newAccessCache(opts.CacheTTL), now: time.Now,
		used: map[string]time.Time{},
		oauth: &oauth2.Config{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret,
			RedirectURL: opts.PublicURL + "/sessions/callback",
			Endpoint: oauth2.Endpoint{AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token",
				AuthStyle: oauth2.AuthStyleInParams}}}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /sessions", h.list)
	h.mux.HandleFunc("GET /sessions/{id}", h.detail)
	h.mux.HandleFunc("GET /sessions/login", h.login)
	h.mux.HandleFunc("GET /sessions/callback", h.callback)
	h.mux.HandleFunc("POST /sessions/logout", h.logout)
	return h, nil
}

// WebURL returns GitHub's web root for its REST root: github.com for
// api.github.com, the host for an Enterprise Server's /api/v3/, the root
// itself otherwise.
func WebURL(apiURL string) (string, error) {
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("sessions page: GitHub URL %q is not an absolute URL", apiURL)
	}
	if u.Host == "api.github.com" {
		return "https://github.com", nil
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3")
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// ServeHTTP serves the page with headers that keep it private and inert: no
// script, no framing, no caching, no referrer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	h.mux.ServeHTTP(w, r)
}

// Off serves every /sessions request with 404 and why the page is off.
func Off(why string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, why, http.StatusNotFound)
	})
}
