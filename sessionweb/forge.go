package sessionweb

import (
	"context"
	"errors"

	"golang.org/x/oauth2"
)

// errRefused: the forge answered 401 to the person's token.
var errRefused = errors.New("the forge refused the token")

// forge is the forge people sign in with on one page: GitHub (github.go)
// or a Gitea server (gitea.go). Each call acts as the person, with their
// token.
type forge interface {
	// name is how the page names it ("GitHub").
	name() string
	// endpoint is its OAuth authorize and token URLs; scopes what the page
	// asks for.
	endpoint() oauth2.Endpoint
	scopes() []string
	// whoami returns the login of token's user.
	whoami(ctx context.Context, token string) (string, error)
	// canRead reports whether token's user may read repository full
	// ("owner/name"): false for no such repository or no access,
	// errRefused when the token is no longer accepted.
	canRead(ctx context.Context, token, full string) (bool, error)
	// issueURL links an issue on the forge's web.
	issueURL(owner, repo string, issue int) string
}
