package sessionweb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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

// Options configure the page. PublicURL, one of GitHubURL and GiteaURL,
// ClientID, ClientSecret, Secret and Store are required.
type Options struct {
	Store Store
	// PublicURL is the bot's address as people reach it; the OAuth
	// callback is PublicURL + Base + "/callback".
	PublicURL string
	// Base is the page's path ("/sessions" when empty): every link,
	// form, cookie and redirect is under it, so pages of two forges can
	// be served side by side.
	Base string
	// GitHubURL is GitHub's REST root (https://api.github.com/ or
	// https://HOST/api/v3/); WebURL its web root, derived from GitHubURL
	// when empty (github.com, or the Enterprise host).
	GitHubURL string
	WebURL    string
	// GiteaURL, instead of GitHubURL, is a Gitea or Forgejo server's root
	// URL: people sign in with it, and it says what they can read.
	GiteaURL string
	// ClientID and ClientSecret are the OAuth credentials: the App's on
	// GitHub, an OAuth2 application's on Gitea.
	ClientID, ClientSecret string
	// Secret keys the cookies (at least 16 bytes; the server passes its
	// App private key).
	Secret []byte
	// Operators are the forge's logins who see every session the page
	// shows.
	Operators []string
	// InstallationSign, when not 0, keeps the page to the sessions whose
	// installation id has this sign (the server numbers GitHub's
	// installations above zero, its Gitea server below): a forge's word on
	// a repository says nothing about another forge's repository of the
	// same name, so each page shows its own forge's sessions only, to
	// operators too.
	InstallationSign int
	// Elsewhere, when set, is the path of the page that shows the sessions
	// this one does not (the other forge's): a session link that comes
	// here (the progress comment's) is sent on there.
	Elsewhere string
	// SignInTTL is how long a sign-in lasts (2h when 0); CacheTTL how
	// long the forge's answer about a repository is trusted (5m when 0, at
	// most 5m).
	SignInTTL time.Duration
	CacheTTL  time.Duration
	// PageSize is how many sessions a list page shows (50 when 0).
	PageSize int
	// HTTPClient talks to the forge (http.DefaultClient when nil).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Handler serves the page (/sessions, or Options.Base) and its pages.
type Handler struct {
	opts   Options
	base   string
	st     Store
	forge  forge
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
	if opts.Store == nil || opts.PublicURL == "" || (opts.GitHubURL == "") == (opts.GiteaURL == "") ||
		opts.ClientID == "" || opts.ClientSecret == "" {
		return nil, errors.New("sessions page: store, public URL, one of GitHub URL and Gitea URL, and OAuth client id and secret are required")
	}
	base := "/" + strings.Trim(cmp.Or(opts.Base, "/sessions"), "/")
	if base == "/" || strings.ContainsAny(base, "?#{}\\ ") {
		return nil, fmt.Errorf("sessions page: base path %q must be a path below /", opts.Base)
	}
	opts.Base = base
	seal, err := newSealer(opts.Secret, base)
	if err != nil {
		return nil, err
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	f, err := newForge(opts)
	if err != nil {
		return nil, err
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	opts.SignInTTL = cmp.Or(opts.SignInTTL, 2*time.Hour)
	opts.CacheTTL = min(cmp.Or(opts.CacheTTL, 5*time.Minute), 5*time.Minute)
	opts.PageSize = cmp.Or(opts.PageSize, 50)
	h := &Handler{opts: opts, base: base, st: opts.Store, forge: f, seal: seal,
		secure: strings.HasPrefix(opts.PublicURL, "https://"),
		log:    cmp.Or(opts.Logger, slog.Default()), access: newAccessCache(opts.CacheTTL), now: time.Now,
		used: map[string]time.Time{},
		oauth: &oauth2.Config{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret,
			RedirectURL: opts.PublicURL + base + "/callback", Endpoint: f.endpoint(), Scopes: f.scopes()}}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET "+base, h.list)
	h.mux.HandleFunc("GET "+base+"/{id}", h.detail)
	h.mux.HandleFunc("GET "+base+"/login", h.login)
	h.mux.HandleFunc("GET "+base+"/callback", h.callback)
	h.mux.HandleFunc("POST "+base+"/logout", h.logout)
	return h, nil
}

// newForge is the forge opts name.
func newForge(opts Options) (forge, error) {
	if opts.GiteaURL != "" {
		return newGiteaForge(opts.GiteaURL, opts.HTTPClient)
	}
	web := opts.WebURL
	if web == "" {
		var err error
		if web, err = WebURL(opts.GitHubURL); err != nil {
			return nil, err
		}
	}
	return &githubForge{api: opts.GitHubURL, web: strings.TrimSuffix(web, "/"), hc: opts.HTTPClient}, nil
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

// Off serves every request of a page that is off with 404 and why the page is off.
func Off(why string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, why, http.StatusNotFound)
	})
}
