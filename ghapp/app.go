package ghapp

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"
)

// AppConfig configures an App. AppID and PrivateKey are required; the rest
// have defaults.
type AppConfig struct {
	AppID int64
	// PrivateKey is the App's PEM-encoded RSA private key. It is parsed once
	// and never logged.
	PrivateKey []byte
	// BaseURL is the REST API root, "https://api.github.com/" by default; a
	// GitHub Enterprise Server uses "https://HOST/api/v3/".
	BaseURL string
	// HTTPClient supplies the base transport and timeout; http.DefaultClient
	// when nil.
	HTTPClient *http.Client
	// BotLogin is the App's bot user ("name[bot]"). When empty, BotLogin()
	// asks GitHub for the App's slug once.
	BotLogin string
	// WriteInterval spaces POST/PATCH/PUT/DELETE requests per installation:
	// 0 means DefaultWriteInterval, negative means no spacing (tests).
	WriteInterval time.Duration
	// MaxRetries bounds retries of 5xx answers and rate-limit waits
	// (0 means DefaultMaxRetries, negative means none).
	MaxRetries int
	// Backoff is the first 5xx retry delay, doubled on each retry
	// (0 means DefaultBackoff).
	Backoff time.Duration
	// MaxWait is the longest rate-limit wait the transport sits out; a
	// longer one is returned to the caller as a *RateLimitError saying
	// until when (0 means DefaultMaxWait).
	MaxWait time.Duration
	// Observe, when set, is called after every HTTP attempt (metrics).
	Observe func(Call)
}

// App is a GitHub App: it mints installation clients and tokens. It is safe
// for concurrent use; installation transports (and so their cached tokens and
// write spacing) are kept for the App's lifetime.
type App struct {
	cfg  AppConfig
	key  *rsa.PrivateKey
	base *url.URL

	// sleep and now are replaced by tests of the transport.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time

	mu    sync.Mutex // guards insts and bot
	insts map[int64]*ghinstallation.Transport
	bot   string
}

// NewApp checks cfg, parses the private key and returns the App. The error
// never contains key material.
func NewApp(cfg AppConfig) (*App, error) {
	if cfg.AppID <= 0 {
		return nil, errors.New("new github app: app id must be positive")
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(cfg.PrivateKey)
	if err != nil {
		return nil, errors.New("new github app: private key is not a PEM-encoded RSA key")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.github.com/"
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("new github app: base url %q is not an absolute url", cfg.BaseURL)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &App{cfg: cfg, key: key, base: base, sleep: sleepCtx, now: time.Now,
		insts: map[int64]*ghinstallation.Transport{}, bot: cfg.BotLogin}, nil
}

// AppID returns the App's id.
func (a *App) AppID() int64 { return a.cfg.AppID }

// newTransport builds the rate-limit aware transport over the base client;
// an installation's paces its requests (pace.go), the App's own does not.
func (a *App) newTransport(pace bool) *transport {
	t := newTransport(a.cfg.HTTPClient.Transport, TransportOptions{WriteInterval: a.cfg.WriteInterval,
		MaxRetries: a.cfg.MaxRetries, Backoff: a.cfg.Backoff, MaxWait: a.cfg.MaxWait, Observe: a.cfg.Observe,
		Now: a.now, Sleep: a.sleep})
	if pace {
		t.pace = &pacer{}
	}
	return t
}

// installation returns the cached token transport of an installation.
func (a *App) installation(id int64) (*ghinstallation.Transport, error) {
	if id <= 0 {
		return nil, fmt.Errorf("installation id %d is not positive", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.insts[id]; ok {
		return t, nil
	}
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.newTransport(true), a.cfg.AppID, a.key)
	atr.BaseURL = strings.TrimSuffix(a.cfg.BaseURL, "/")
	t := ghinstallation.NewFromAppsTransport(atr, id)
	// Without options ghinstallation posts the body "null", which GitHub's
	// description does not allow; an empty object asks for the same token.
	t.InstallationTokenOptions = &github.InstallationTokenOptions{}
	a.insts[id] = t
	return t, nil
}

// newGitHub returns a go-github client over rt rooted at the App's base URL.
func (a *App) newGitHub(rt http.RoundTripper) *github.Client {
	gh := github.NewClient(&http.Client{Transport: rt, Timeout: a.cfg.HTTPClient.Timeout})
	base := *a.base
	gh.BaseURL = &base
	up := *a.base
	gh.UploadURL = &up
	return gh
}

// Client returns a client acting as the given installation. Its token is
// fetched on first use, cached and refreshed a minute before it expires.
func (a *App) Client(ctx context.Context, installationID int64) (*Client, error) {
	t, err := a.installation(installationID)
	if err != nil {
		return nil, fmt.Errorf("github client: %w", err)
	}
	return &Client{gh: a.newGitHub(t), installation: installationID, app: a}, nil
}

// Token returns a valid installation access token, e.g. for git push over
// HTTPS ("x-access-token:TOKEN"). The caller must not log it.
func (a *App) Token(ctx context.Context, installationID int64) (string, error) {
	t, err := a.installation(installationID)
	if err != nil {
		return "", fmt.Errorf("installation token: %w", err)
	}
	tok, err := t.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("installation token for %d: %w", installationID, tokenErr(err))
	}
	return tok, nil
}

// AppClient returns a client authenticated as the App itself (JWT), for the
// few /app endpoints.
func (a *App) AppClient() *github.Client {
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.newTransport(false), a.cfg.AppID, a.key)
	atr.BaseURL = strings.TrimSuffix(a.cfg.BaseURL, "/")
	return a.newGitHub(atr)
}

// BotLogin returns the App's bot user login ("slug[bot]"), from AppConfig or
// from GET /app on first use.
func (a *App) BotLogin(ctx context.Context) (string, error) {
	a.mu.Lock()
	bot := a.bot
	a.mu.Unlock()
	if bot != "" {
		return bot, nil
	}
	app, _, err := a.AppClient().Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("get app: %w", err)
	}
	if app.GetSlug() == "" {
		return "", errors.New("get app: github returned no slug")
	}
	bot = app.GetSlug() + "[bot]"
	a.mu.Lock()
	a.bot = bot
	a.mu.Unlock()
	return bot, nil
}

// tokenErr is tokenRequestErr, with a 404 (the installation is gone) also
// an ErrInstallationGone.
func tokenErr(err error) error {
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil && he.Response.StatusCode == http.StatusNotFound {
		return goneError{tokenRequestErr(err)}
	}
	return tokenRequestErr(err)
}

// tokenRequestErr keeps ghinstallation's error chain but drops the response
// (which could echo a token) from what is printed.
func tokenRequestErr(err error) error {
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) {
		status := 0
		if he.Response != nil {
			status = he.Response.StatusCode
		}
		if he.RootCause != nil {
			return fmt.Errorf("token request failed (status %d): %w", status, he.RootCause)
		}
		return fmt.Errorf("token request failed (status %d)", status)
	}
	return err
}
