package sessionweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"github.com/issuesmith/issuesmith/gitea"
)

// giteaForge is a Gitea (or Forgejo) server as an OAuth2 provider: root is
// its root URL without the trailing slash. The person's calls go through
// package gitea's client (its URL building under a sub-path, its errors
// with Gitea's status, the token kept out of them), one per token.
type giteaForge struct {
	root string
	hc   *http.Client
}

func newGiteaForge(root string, hc *http.Client) (*giteaForge, error) {
	u, err := url.Parse(root)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("sessions page: Gitea URL %q is not an absolute http(s) URL", root)
	}
	return &giteaForge{root: strings.TrimSuffix(root, "/"), hc: hc}, nil
}

func (g *giteaForge) name() string { return "Gitea" }

// endpoint: Gitea takes the client's credentials in the body as well as
// in a Basic header; in the body, as with GitHub.
func (g *giteaForge) endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: g.root + "/login/oauth/authorize", TokenURL: g.root + "/login/oauth/access_token",
		AuthStyle: oauth2.AuthStyleInParams}
}

// scopes narrow the token to reading (Gitea grants every scope when none
// is asked for).
func (g *giteaForge) scopes() []string { return []string{"read:user", "read:repository"} }

func (g *giteaForge) issueURL(owner, repo string, issue int) string {
	return g.root + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/issues/" + strconv.Itoa(issue)
}

// client is a Gitea client acting as the person; no write is ever made,
// so the transport's write spacing never applies.
func (g *giteaForge) client(token string) (*gitea.Client, error) {
	return gitea.New(g.root, token, gitea.Options{HTTPClient: g.hc})
}

// whoami asks Gitea whose token it is (GET /api/v1/user).
func (g *giteaForge) whoami(ctx context.Context, token string) (string, error) {
	c, err := g.client(token)
	if err != nil {
		return "", err
	}
	u, err := c.Self(ctx)
	if status(err) == http.StatusUnauthorized {
		return "", errRefused
	}
	if err != nil {
		return "", err
	}
	if u.Login == "" {
		return "", errors.New("gitea GET /user: no login")
	}
	return u.Login, nil
}

// canRead asks Gitea for the repository as the person: readable when
// their permissions include pull, or the repository is public; 404 and
// 403 say no.
func (g *giteaForge) canRead(ctx context.Context, token, full string) (bool, error) {
	owner, name, _ := strings.Cut(full, "/")
	c, err := g.client(token)
	if err != nil {
		return false, err
	}
	rp, err := c.Repository(ctx, owner, name)
	switch status(err) {
	case 0:
	case http.StatusUnauthorized:
		return false, errRefused
	case http.StatusNotFound, http.StatusForbidden:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return rp.Permissions.Pull || !rp.Private, nil
}

// status is the HTTP status Gitea refused a call with (0 for none).
func status(err error) int {
	if e, ok := errors.AsType[*gitea.Error](err); ok {
		return e.Status
	}
	return 0
}
