package ghapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Manifest is a GitHub App manifest: the keys of app.yml (Probot style) and
// the JSON object GitHub's App manifest flow takes
// (docs.github.com "Registering a GitHub App from a manifest"). The same
// struct reads the YAML and writes the JSON, so a key is either known to
// both or refused.
type Manifest struct {
	Name        string `yaml:"name" json:"name"`
	URL         string `yaml:"url" json:"url"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// HookAttributes is the webhook: URL is where GitHub delivers events.
	HookAttributes HookAttributes `yaml:"hook_attributes" json:"hook_attributes"`
	// RedirectURL is where GitHub sends the browser with the one-time code
	// after the App is created.
	RedirectURL  string   `yaml:"redirect_url,omitempty" json:"redirect_url,omitempty"`
	CallbackURLs []string `yaml:"callback_urls,omitempty" json:"callback_urls,omitempty"`
	SetupURL     string   `yaml:"setup_url,omitempty" json:"setup_url,omitempty"`
	// Public lets any account install the App; false keeps it to its owner.
	Public bool `yaml:"public" json:"public"`
	// DefaultPermissions maps a permission to read, write or admin.
	DefaultPermissions map[string]string `yaml:"default_permissions" json:"default_permissions"`
	// DefaultEvents are the webhook events the App subscribes to.
	DefaultEvents         []string `yaml:"default_events" json:"default_events"`
	RequestOAuthOnInstall bool     `yaml:"request_oauth_on_install,omitempty" json:"request_oauth_on_install,omitempty"`
	SetupOnUpdate         bool     `yaml:"setup_on_update,omitempty" json:"setup_on_update,omitempty"`
}

// HookAttributes is a manifest's webhook.
type HookAttributes struct {
	URL string `yaml:"url" json:"url"`
	// Active is GitHub's default (true) when nil.
	Active *bool `yaml:"active,omitempty" json:"active,omitempty"`
}

// ParseManifest reads a manifest from YAML (app.yml) strictly: an unknown
// key or a wrong type is an error naming the line. The result is validated
// except for RedirectURL, which the manifest flow sets.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("read app manifest: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// permissionLevels are the access levels a manifest may ask for.
var permissionLevels = []string{"read", "write", "admin"}

// Validate checks what GitHub requires of a manifest and names each
// offending key.
func (m *Manifest) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if strings.TrimSpace(m.Name) == "" {
		bad("name", "required")
	} else if len(m.Name) > 34 {
		bad("name", "GitHub allows at most 34 characters")
	}
	if !absoluteURL(m.URL) {
		bad("url", "must be an absolute http(s) URL (the App's homepage)")
	}
	if !absoluteURL(m.HookAttributes.URL) {
		bad("hook_attributes.url", "must be an absolute http(s) URL (your server's /webhook)")
	}
	if m.RedirectURL != "" && !absoluteURL(m.RedirectURL) {
		bad("redirect_url", "must be an absolute http(s) URL")
	}
	if len(m.DefaultPermissions) == 0 {
		bad("default_permissions", "required: the permissions the App asks for")
	}
	for _, name := range sortedKeys(m.DefaultPermissions) {
		if !slices.Contains(permissionLevels, m.DefaultPermissions[name]) {
			bad("default_permissions."+name, "%q is not read, write or admin", m.DefaultPermissions[name])
		}
	}
	for i, ev := range m.DefaultEvents {
		if ev == "" || strings.ToLower(ev) != ev || strings.ContainsAny(ev, " .") {
			bad(fmt.Sprintf("default_events[%d]", i), "%q is not an event name like issue_comment", ev)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("app manifest: %w", errors.Join(errs...))
	}
	return nil
}

// JSON returns the manifest as the JSON object GitHub's new-App form takes.
func (m *Manifest) JSON() ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode app manifest: %w", err)
	}
	return b, nil
}

func absoluteURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ExampleWebhook reports whether the webhook URL is still on a domain
// reserved for examples (RFC 2606), as app.yml ships it: GitHub would
// deliver nowhere.
func (m *Manifest) ExampleWebhook() bool {
	u, err := url.Parse(m.HookAttributes.URL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, d := range []string{"example.com", "example.net", "example.org", "example"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// PermissionList renders the permissions as "checks:read, contents:write".
func (m *Manifest) PermissionList() string {
	parts := make([]string, 0, len(m.DefaultPermissions))
	for _, k := range sortedKeys(m.DefaultPermissions) {
		parts = append(parts, k+":"+m.DefaultPermissions[k])
	}
	return strings.Join(parts, ", ")
}

// APIURLFor returns the REST API root that belongs to GitHub's web address:
// api.github.com for github.com, WEB/api/v3/ for GitHub Enterprise Server.
func APIURLFor(webURL string) (string, error) {
	u, err := url.Parse(webURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", webURL)
	}
	if strings.EqualFold(u.Host, "github.com") {
		return "https://api.github.com/", nil
	}
	return strings.TrimSuffix(webURL, "/") + "/api/v3/", nil
}
