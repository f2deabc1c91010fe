package ghapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"
)

// AppCredentials is what GitHub hands back once, when it creates an App from
// a manifest. ClientSecret, WebhookSecret and PrivateKey are secrets: String
// and LogValue leave them out, and no error of this package contains them.
type AppCredentials struct {
	ID      int64
	Slug    string
	Name    string
	HTMLURL string
	// Owner is the account the App belongs to.
	Owner         string
	ClientID      string
	ClientSecret  string
	WebhookSecret string
	// PrivateKey is the App's PEM-encoded RSA private key.
	PrivateKey []byte
}

// BotLogin is the App's bot user, "slug[bot]".
func (c *AppCredentials) BotLogin() string { return c.Slug + "[bot]" }

// LogValue implements slog.LogValuer without the secrets.
func (c *AppCredentials) LogValue() slog.Value {
	return slog.GroupValue(slog.Int64("app_id", c.ID), slog.String("slug", c.Slug),
		slog.String("html_url", c.HTMLURL), slog.String("owner", c.Owner))
}

// String describes the App without its secrets.
func (c *AppCredentials) String() string { return c.LogValue().String() }

// ManifestError is GitHub refusing to convert a manifest code.
type ManifestError struct {
	// Status is the HTTP status GitHub answered.
	Status int
	// Message is GitHub's message, if any.
	Message string
}

func (e *ManifestError) Error() string {
	msg := fmt.Sprintf("github answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	switch {
	case e.Status == http.StatusNotFound:
		msg += " (the code is unknown, already used or older than an hour)"
	case e.Status >= 500:
		msg += " (a GitHub failure; the App may or may not have been created: check your GitHub Apps settings)"
	}
	return msg
}

// CompleteManifest exchanges the one-time code of the manifest flow for the
// new App's id, secrets and private key (POST /app-manifests/{code}/conversions;
// no credential needed). apiURL is the REST API root ("https://api.github.com/"
// when empty); hc is http.DefaultClient when nil. A refusal is a
// *ManifestError; no error contains the code or a secret.
func CompleteManifest(ctx context.Context, hc *http.Client, apiURL, code string) (*AppCredentials, error) {
	if code == "" || strings.ContainsAny(code, "/?#% ") {
		return nil, errors.New("complete app manifest: the code is empty or malformed")
	}
	client, err := manifestClient(hc, apiURL)
	if err != nil {
		return nil, err
	}
	cfg, _, err := client.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("complete app manifest: %w", conversionError(err))
	}
	creds := &AppCredentials{ID: cfg.GetID(), Slug: cfg.GetSlug(), Name: cfg.GetName(), HTMLURL: cfg.GetHTMLURL(),
		Owner: cfg.GetOwner().GetLogin(), ClientID: cfg.GetClientID(), ClientSecret: cfg.GetClientSecret(),
		WebhookSecret: cfg.GetWebhookSecret(), PrivateKey: []byte(cfg.GetPEM())}
	if err := creds.check(); err != nil {
		return nil, err
	}
	return creds, nil
}

func manifestClient(hc *http.Client, apiURL string) (*github.Client, error) {
	if apiURL == "" {
		apiURL = "https://api.github.com/"
	}
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	base, err := url.Parse(apiURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("complete app manifest: api url %q is not an absolute url", apiURL)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	client := github.NewClient(hc)
	client.BaseURL = base
	return client, nil
}

// conversionError keeps GitHub's status and message and drops the request
// URL, which holds the one-time code.
func conversionError(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return &ManifestError{Status: er.Response.StatusCode, Message: er.Message}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("reach the github api: %w", ue.Err)
	}
	return err
}

// check refuses an answer the bot could not run with; the App exists by
// then, so the error points at its page.
func (c *AppCredentials) check() error {
	var missing []string
	if c.ID <= 0 {
		missing = append(missing, "an app id")
	}
	if c.WebhookSecret == "" {
		missing = append(missing, "a webhook secret")
	}
	if _, err := jwt.ParseRSAPrivateKeyFromPEM(c.PrivateKey); err != nil {
		missing = append(missing, "a PEM RSA private key")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("complete app manifest: github created the app %q (%s) but its answer lacks %s; "+
		"set them on the app's page instead", c.Slug, c.HTMLURL, strings.Join(missing, ", "))
}
