package ghapp

import (
	"context"
	"fmt"
	"net/url"
)

// permissionLevel is GitHub's answer for a collaborator's permission.
// go-github v60 lacks role_name, which is the only place "maintain" shows.
type permissionLevel struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
}

// Permission returns user's role on owner/repo: "admin", "maintain",
// "write", "triage", "read" or "none" (role_name when GitHub sends it,
// else permission). A user who is not a collaborator is "none" or a 404
// (ErrNotFound), depending on the repository.
func (c *Client) Permission(ctx context.Context, owner, repo, user string) (string, error) {
	pl, err := c.permissionLevel(ctx, owner, repo, user)
	if err != nil {
		return "", err
	}
	if pl.RoleName != "" {
		return pl.RoleName, nil
	}
	return pl.Permission, nil
}

func (c *Client) permissionLevel(ctx context.Context, owner, repo, user string) (*permissionLevel, error) {
	u := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission",
		url.PathEscape(owner), url.PathEscape(repo), url.PathEscape(user))
	req, err := c.gh.NewRequest("GET", u, nil)
	if err != nil {
		return nil, fmt.Errorf("permission of %s on %s/%s: %w", user, owner, repo, err)
	}
	var pl permissionLevel
	if _, err := c.gh.Do(ctx, req, &pl); err != nil {
		return nil, fmt.Errorf("permission of %s on %s/%s: %w", user, owner, repo, notFound(err))
	}
	return &pl, nil
}

// CanWrite reports whether user has write, maintain or admin permission on
// owner/repo. A user GitHub does not know as a collaborator cannot write; any
// other failure is returned, and the caller must deny.
//
// A custom repository role (GitHub Enterprise) has its own role_name; the
// legacy permission field then says what it is built on ("write" for
// maintain and for a custom role that can push), so it decides.
//
// The token comes first: an installation GitHub no longer knows is told
// apart from a failed check (ErrInstallationGone), and the token is cached
// for the request that follows.
func (c *Client) CanWrite(ctx context.Context, owner, repo, user string) (bool, error) {
	if c.app != nil {
		if _, err := c.app.Token(ctx, c.installation); err != nil {
			return false, err
		}
	}
	pl, err := c.permissionLevel(ctx, owner, repo, user)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch pl.RoleName {
	case "admin", "maintain", "write":
		return true, nil
	}
	return pl.Permission == "admin" || pl.Permission == "write", nil
}
