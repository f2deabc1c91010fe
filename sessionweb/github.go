package sessionweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
	"golang.org/x/oauth2"
)

// githubForge is GitHub (or an Enterprise Server): api its REST root, web
// its web root.
type githubForge struct {
	api, web string
	hc       *http.Client
}

func (g *githubForge) name() string { return "GitHub" }

func (g *githubForge) endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: g.web + "/login/oauth/authorize", TokenURL: g.web + "/login/oauth/access_token",
		AuthStyle: oauth2.AuthStyleInParams}
}

// scopes: none; a GitHub App's user token carries the App's permissions.
func (g *githubForge) scopes() []string { return nil }

func (g *githubForge) issueURL(owner, repo string, issue int) string {
	return g.web + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/issues/" + strconv.Itoa(issue)
}

// client is a GitHub client acting as the person.
func (g *githubForge) client(token string) (*github.Client, error) {
	c := github.NewClient(g.hc).WithAuthToken(token)
	base, err := url.Parse(strings.TrimSuffix(g.api, "/") + "/")
	if err != nil {
		return nil, err
	}
	c.BaseURL = base
	return c, nil
}

// whoami asks GitHub whose token it is.
func (g *githubForge) whoami(ctx context.Context, token string) (string, error) {
	c, err := g.client(token)
	if err != nil {
		return "", err
	}
	u, resp, err := c.Users.Get(ctx, "")
	if resp != nil && resp.StatusCode == http.StatusUnauthorized {
		return "", errRefused
	}
	if err != nil {
		return "", fmt.Errorf("GET /user: %w", err)
	}
	if u.GetLogin() == "" {
		return "", errors.New("GET /user: no login")
	}
	return u.GetLogin(), nil
}

// canRead asks GitHub for the repository as the person: readable when
// their permissions include pull, or the repository is public.
func (g *githubForge) canRead(ctx context.Context, token, full string) (bool, error) {
	owner, name, _ := strings.Cut(full, "/")
	c, err := g.client(token)
	if err != nil {
		return false, err
	}
	rp, resp, err := c.Repositories.Get(ctx, owner, name)
	switch {
	case resp != nil && resp.StatusCode == http.StatusUnauthorized:
		return false, errRefused
	case resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("GET /repos/%s: %w", full, err)
	}
	return rp.GetPermissions()["pull"] || !rp.GetPrivate(), nil
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
