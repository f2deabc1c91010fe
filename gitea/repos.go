package gitea

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Version returns the server's version as it says it: "1.26.0" for
// Gitea, "11.0.1+gitea-1.22.0" for Forgejo (kept as is, not parsed).
func (c *Client) Version(ctx context.Context) (string, error) {
	var out struct {
		Version string `json:"version"`
	}
	if err := c.do(ctx, http.MethodGet, path("version"), nil, nil, &out); err != nil {
		return "", err
	}
	return out.Version, nil
}

// Self returns the token's user (the bot).
func (c *Client) Self(ctx context.Context) (*User, error) {
	var out User
	if err := c.do(ctx, http.MethodGet, path("user"), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Repository returns a repository with the token user's permissions.
func (c *Client) Repository(ctx context.Context, owner, repo string) (*Repository, error) {
	var out Repository
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RawFile returns a file's content at ref (a branch, tag or commit; ""
// for the default branch), ErrNotFound when there is none. A file larger
// than Options.MaxBody is an error.
func (c *Client) RawFile(ctx context.Context, owner, repo, filePath, ref string) ([]byte, error) {
	resp, err := c.send(ctx, http.MethodGet, repoPath(owner, repo, "raw")+"/"+splitPath(filePath), query("ref", ref), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxBody)+1))
	if err != nil {
		return nil, fmt.Errorf("gitea GET %s: %w", resp.Request.URL.Path, err)
	}
	if len(b) > c.opts.MaxBody {
		return nil, fmt.Errorf("gitea GET %s: the file is larger than %d bytes", resp.Request.URL.Path, c.opts.MaxBody)
	}
	return b, nil
}

// CombinedStatus returns the latest status of each context on ref (a
// commit, branch or tag), every page; with no status its State is
// "pending".
func (c *Client) CombinedStatus(ctx context.Context, owner, repo, ref string) (*CombinedStatus, error) {
	p := repoPath(owner, repo, "commits") + "/" + splitPath(ref) + "/status"
	var out *CombinedStatus
	for page := 1; page <= c.opts.MaxPages; page++ {
		q := query("page", itoa(page), "limit", itoa(c.opts.PageSize))
		resp, err := c.send(ctx, http.MethodGet, p, q, nil)
		if err != nil {
			return nil, err
		}
		var cs CombinedStatus
		if err := decode(resp, &cs); err != nil {
			return nil, err
		}
		if out == nil {
			out = &cs
		} else {
			out.Statuses = append(out.Statuses, cs.Statuses...)
			out.State = combine(out.Statuses)
		}
		if !more(resp.Header, len(out.Statuses), len(cs.Statuses)) {
			break
		}
	}
	return out, nil
}

// combine is Gitea's rule for a commit's state over several pages of
// statuses (commitstatus.CommitStatusStates.Combine).
func combine(statuses []Status) string {
	ok := 0
	for _, s := range statuses {
		switch s.State {
		case "error", "failure", "warning":
			return "failure"
		case "success", "skipped":
			ok++
		}
	}
	if ok > 0 && ok == len(statuses) {
		return "success"
	}
	return "pending"
}

// CreateStatus sets a commit status on sha (a full commit id).
func (c *Client) CreateStatus(ctx context.Context, owner, repo, sha string, s NewStatus) (*Status, error) {
	var out Status
	if err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "statuses", sha), nil, s, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Permission returns user's access to the repository: "owner", "admin",
// "write", "read" or "none". Gitea answers it only to a site admin, a
// repository admin, or the user asking about itself (403 otherwise).
func (c *Client) Permission(ctx context.Context, owner, repo, user string) (string, error) {
	var out struct {
		Permission string `json:"permission"`
	}
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "collaborators", user, "permission"), nil, nil, &out); err != nil {
		return "", err
	}
	return out.Permission, nil
}

// Hooks lists a repository's webhooks, every page (repository admins only).
func (c *Client) Hooks(ctx context.Context, owner, repo string) ([]Hook, error) {
	return list[Hook](ctx, c, repoPath(owner, repo, "hooks"), nil)
}

// CreateHook makes a repository webhook (repository admins only).
func (c *Client) CreateHook(ctx context.Context, owner, repo string, h NewHook) (*Hook, error) {
	var out Hook
	if err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "hooks"), nil, h, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobLog returns an Actions job's log, its last Options.MaxBody bytes when
// it is longer (a failure is at the end).
func (c *Client) JobLog(ctx context.Context, owner, repo string, jobID int64) (string, error) {
	resp, err := c.send(ctx, http.MethodGet, repoPath(owner, repo, "actions", "jobs", i64toa(jobID), "logs"), nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	t := &tail{max: c.opts.MaxBody}
	if _, err := io.Copy(t, resp.Body); err != nil {
		return "", fmt.Errorf("gitea GET %s: %w", resp.Request.URL.Path, err)
	}
	return t.String(), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max { // trimmed in batches, not on every write
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	return string(t.buf[max(len(t.buf)-t.max, 0):])
}
