package ghtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ManifestApp is an App registered through GitHub's App manifest flow: what
// the browser posted to the fake's web form and what the conversion handed
// out.
type ManifestApp struct {
	// Org is the organization the App was created under ("" for the
	// signed-in user's account).
	Org string
	// State is the state query value the form was posted with.
	State string
	// Manifest is the posted manifest JSON.
	Manifest json.RawMessage
	// Code is the one-time code the browser was redirected with.
	Code string
	// Converted reports whether the code was exchanged.
	Converted bool
	// Slug, WebhookSecret and ClientSecret are what the conversion answered
	// (empty before it).
	Slug, WebhookSecret, ClientSecret string
}

// manifestDoc is the manifest as GitHub documents it; unknown keys are
// refused (GitHub ignores them, in our code they are a bug).
type manifestDoc struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	HookAttributes *struct {
		URL    string `json:"url"`
		Active *bool  `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL           string            `json:"redirect_url"`
	CallbackURLs          []string          `json:"callback_urls"`
	SetupURL              string            `json:"setup_url"`
	Public                bool              `json:"public"`
	DefaultEvents         []string          `json:"default_events"`
	DefaultPermissions    map[string]string `json:"default_permissions"`
	RequestOAuthOnInstall bool              `json:"request_oauth_on_install"`
	SetupOnUpdate         bool              `json:"setup_on_update"`
}

// noAuthOps are the operations GitHub serves without a credential.
var noAuthOps = map[string]bool{"POST /app-manifests/{code}/conversions": true}

// WebHandler serves the page of github.com the manifest flow posts to:
// POST /settings/apps/new (or /organizations/{org}/settings/apps/new) with
// the form field "manifest" and the query "state". It checks the manifest
// as GitHub does, registers it under a one-time code, and redirects the
// browser to the manifest's redirect_url with code and state, as GitHub does
// after the user confirms. POST /app-manifests/{code}/conversions on the
// API side exchanges the code. A refused manifest fails the test.
func (s *Server) WebHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		org, isNewApp := newAppOrg(r.URL.Path)
		if !isNewApp || r.Method != http.MethodPost {
			s.failf("web: %s %s is not the manifest flow's page", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		raw := r.PostFormValue("manifest")
		doc, err := checkManifest(raw)
		if err != nil {
			s.failf("web: GitHub would refuse the manifest: %v", err)
			http.Error(w, "Invalid GitHub App configuration: "+html.EscapeString(err.Error()), http.StatusUnprocessableEntity)
			return
		}
		code := randomHex(10)
		state := r.URL.Query().Get("state")
		s.mu.Lock()
		s.st.manifests = append(s.st.manifests, &ManifestApp{Org: org, State: state, Manifest: json.RawMessage(raw), Code: code})
		s.mu.Unlock()
		to, _ := url.Parse(doc.RedirectURL) // checkManifest parsed it
		q := to.Query()
		q.Set("code", code)
		if state != "" {
			q.Set("state", state)
		}
		to.RawQuery = q.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
}

// ManifestApps returns the Apps registered through WebHandler, in order.
func (s *Server) ManifestApps() []ManifestApp {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ManifestApp, len(s.st.manifests))
	for i, m := range s.st.manifests {
		out[i] = *m
	}
	return out
}

// newAppOrg matches the new-App page paths.
func newAppOrg(p string) (org string, ok bool) {
	if p == "/settings/apps/new" {
		return "", true
	}
	rest, found := strings.CutPrefix(p, "/organizations/")
	if !found {
		return "", false
	}
	org, tail, _ := strings.Cut(rest, "/")
	return org, org != "" && tail == "settings/apps/new"
}

// checkManifest decodes the manifest and checks what GitHub requires.
func checkManifest(raw string) (*manifestDoc, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var doc manifestDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("manifest is not the documented JSON object: %w", err)
	}
	absolute := func(u string) bool {
		p, err := url.Parse(u)
		return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != ""
	}
	switch {
	case strings.TrimSpace(doc.Name) == "":
		return nil, fmt.Errorf("name is required")
	case !absolute(doc.URL):
		return nil, fmt.Errorf("url must be an absolute URL")
	case doc.HookAttributes == nil || !absolute(doc.HookAttributes.URL):
		return nil, fmt.Errorf("hook_attributes.url must be an absolute URL")
	case !absolute(doc.RedirectURL):
		return nil, fmt.Errorf("redirect_url must be an absolute URL")
	}
	for name, level := range doc.DefaultPermissions {
		if level != "read" && level != "write" && level != "admin" {
			return nil, fmt.Errorf("default_permissions.%s: %q is not read, write or admin", name, level)
		}
	}
	for _, ev := range doc.DefaultEvents {
		if ev == "" || strings.ToLower(ev) != ev {
			return nil, fmt.Errorf("default_events: %q is not an event name", ev)
		}
	}
	return &doc, nil
}

// convertManifest answers the code exchange: the App's id and the fake's
// private key (so the new App's JWTs verify here), fresh secrets.
func convertManifest(c *call) response {
	var m *ManifestApp
	for _, cand := range c.s.st.manifests {
		if cand.Code == c.param("code") && !cand.Converted {
			m = cand
		}
	}
	if m == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	var doc manifestDoc
	_ = json.Unmarshal(m.Manifest, &doc) // checked when posted
	m.Converted = true
	m.Slug = slugOf(doc.Name)
	m.WebhookSecret, m.ClientSecret = randomHex(20), randomHex(20)
	owner := userObj("octocat")
	if m.Org != "" {
		owner = userObj(m.Org)
		owner["type"] = "Organization"
	}
	now := ts(time.Now())
	return ok(http.StatusCreated, obj{"id": c.s.opts.AppID, "slug": m.Slug, "node_id": "A_" + m.Slug,
		"client_id": "Iv1." + randomHex(8), "owner": owner, "name": doc.Name, "description": doc.Description,
		"external_url": doc.URL, "html_url": "https://github.com/apps/" + m.Slug, "created_at": now, "updated_at": now,
		"permissions": doc.DefaultPermissions, "events": doc.DefaultEvents,
		"client_secret": m.ClientSecret, "webhook_secret": m.WebhookSecret, "pem": string(c.s.pem)})
}

// slugOf turns an App name into GitHub's slug: lower case, runs of other
// characters as one dash.
func slugOf(name string) string {
	var b bytes.Buffer
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
