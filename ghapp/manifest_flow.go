package ghapp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// CallbackPath is where a ManifestFlow receives GitHub's redirect; the
// manifest's redirect_url must point at it.
const CallbackPath = "/callback"

// ManifestFlowConfig configures a ManifestFlow.
type ManifestFlowConfig struct {
	// Manifest is posted to GitHub; its RedirectURL must end in CallbackPath.
	Manifest *Manifest
	// WebURL is GitHub's web root, "https://github.com" when empty.
	WebURL string
	// Org creates the App under this organization instead of the user.
	Org string
	// APIURL and HTTPClient are passed to CompleteManifest.
	APIURL     string
	HTTPClient *http.Client
	// Save stores the new App's credentials; the browser is told the
	// outcome, and Wait returns Save's error.
	Save func(ctx context.Context, creds *AppCredentials) error
}

// ManifestFlow runs GitHub's App manifest flow through the user's browser.
// As an http.Handler it serves "/", a page whose form posts the manifest to
// GitHub's new-App page with a random state, and CallbackPath, where GitHub
// redirects with a one-time code: the state is checked (a mismatch is
// refused and the flow keeps waiting), the code is exchanged once, and the
// credentials go to Save. Wait returns the outcome. Safe for concurrent use.
type ManifestFlow struct {
	cfg      ManifestFlowConfig
	manifest string // JSON
	action   string // the form's target, with the state
	state    string

	mu      sync.Mutex // guards claimed
	claimed bool       // a callback with the right state arrived
	done    chan flowResult
}

type flowResult struct {
	creds *AppCredentials
	err   error
}

// NewManifestFlow checks cfg and draws the state.
func NewManifestFlow(cfg ManifestFlowConfig) (*ManifestFlow, error) {
	if cfg.Manifest == nil || cfg.Save == nil {
		return nil, errors.New("manifest flow: a manifest and a save function are required")
	}
	if err := cfg.Manifest.Validate(); err != nil {
		return nil, err
	}
	if u, err := url.Parse(cfg.Manifest.RedirectURL); err != nil || !absoluteURL(cfg.Manifest.RedirectURL) || u.Path != CallbackPath {
		return nil, fmt.Errorf("manifest flow: redirect_url %q must be an absolute URL ending in %s", cfg.Manifest.RedirectURL, CallbackPath)
	}
	web := strings.TrimSuffix(cfg.WebURL, "/")
	if web == "" {
		web = "https://github.com"
	}
	if !absoluteURL(web) {
		return nil, fmt.Errorf("manifest flow: github url %q is not an absolute http(s) URL", cfg.WebURL)
	}
	page := web + "/settings/apps/new"
	if cfg.Org != "" {
		page = web + "/organizations/" + url.PathEscape(cfg.Org) + "/settings/apps/new"
	}
	raw, err := cfg.Manifest.JSON()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("manifest flow: draw state: %w", err)
	}
	state := hex.EncodeToString(b)
	return &ManifestFlow{cfg: cfg, manifest: string(raw), state: state,
		action: page + "?state=" + state, done: make(chan flowResult, 1)}, nil
}

// NewAppURL is GitHub's page the form posts to, with the state.
func (f *ManifestFlow) NewAppURL() string { return f.action }

// Wait blocks until a callback has been handled or ctx ends, and returns the
// saved credentials or why the flow failed.
func (f *ManifestFlow) Wait(ctx context.Context) (*AppCredentials, error) {
	select {
	case r := <-f.done:
		return r.creds, r.err
	case <-ctx.Done():
		// A callback already exchanging the code finishes (its time is
		// bounded), so the caller learns whether files were saved; a later
		// callback is refused.
		f.mu.Lock()
		claimed := f.claimed
		f.claimed = true
		f.mu.Unlock()
		if claimed {
			r := <-f.done
			return r.creds, r.err
		}
		return nil, fmt.Errorf("manifest flow: waiting for github's redirect: %w", ctx.Err())
	}
}

// ServeHTTP serves the start page and the callback.
func (f *ManifestFlow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		f.render(w, http.StatusOK, startPage, f)
	case r.URL.Path == CallbackPath && r.Method == http.MethodGet:
		f.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *ManifestFlow) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1 {
		f.render(w, http.StatusBadRequest, messagePage, message{Title: "Refused",
			Text: "This redirect does not carry the state this setup sent to GitHub, so its code was not used. " +
				"Start again from this server's first page."})
		return
	}
	code := q.Get("code")
	if code == "" {
		f.render(w, http.StatusBadRequest, messagePage, message{Title: "Refused", Text: "GitHub's redirect carries no code."})
		return
	}
	f.mu.Lock()
	claimed := f.claimed
	f.claimed = true
	f.mu.Unlock()
	if claimed {
		f.render(w, http.StatusConflict, messagePage, message{Title: "Already done",
			Text: "This setup has already handled GitHub's redirect. See the terminal."})
		return
	}
	// The code is spent once GitHub answers: a browser that goes away must
	// not cancel the exchange or the save half-way.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
	defer cancel()
	status := http.StatusBadGateway // GitHub refused or failed
	creds, err := CompleteManifest(ctx, f.cfg.HTTPClient, f.cfg.APIURL, code)
	if err == nil {
		status = http.StatusInternalServerError // saving failed here
		err = f.cfg.Save(ctx, creds)
	}
	if err != nil {
		f.render(w, status, messagePage, message{Title: "Setup failed",
			Text: err.Error() + ". Nothing was saved; see the terminal."})
		f.done <- flowResult{err: err}
		return
	}
	f.render(w, http.StatusOK, messagePage, message{Title: "GitHub App " + creds.Name + " created",
		Text: "Its id, webhook secret and private key are saved. Next, install it on your repositories:",
		Link: strings.TrimSuffix(creds.HTMLURL, "/") + "/installations/new"})
	f.done <- flowResult{creds: creds}
}

type message struct{ Title, Text, Link string }

func (f *ManifestFlow) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = t.Execute(w, data) // a failed write means the browser went away
}

// Manifest returns the manifest JSON the page posts.
func (f *ManifestFlow) Manifest() string { return f.manifest }

var startPage = template.Must(template.New("start").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Register {{.Name}} on GitHub</title></head>
<body>
<h1>Register the GitHub App “{{.Name}}”</h1>
<p>The button sends this manifest to GitHub. GitHub shows it for you to confirm, creates the App, and
sends your browser back here; this server then stores the App's id, webhook secret and private key.</p>
<form action="{{.NewAppURL}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the GitHub App on GitHub</button>
</form>
<pre>{{.Manifest}}</pre>
</body></html>
`))

var messagePage = template.Must(template.New("message").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><h1>{{.Title}}</h1><p>{{.Text}}</p>{{with .Link}}<p><a href="{{.}}">{{.}}</a></p>{{end}}</body></html>
`))

// Name is the App's name, for the start page.
func (f *ManifestFlow) Name() string { return f.cfg.Manifest.Name }
