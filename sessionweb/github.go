package sessionweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
	"golang.org/x/sync/errgroup"
)

// errRefused: GitHub answered 401 to the person's token.
var errRefused = errors.New("GitHub refused the token")

// client is a GitHub client acting as the person.
func (h *Handler) client(token string) (*github.Client, error) {
	c := github.NewClient(h.opts.HTTPClient).WithAuthToken(token)
	base, err := url.Parse(strings.TrimSuffix(h.opts.GitHubURL, "/") + "/")
	if err != nil {
		return nil, err
	}
	c.BaseURL = base
	return c, nil
}

// whoami asks GitHub whose token it is.
func (h *Handler) whoami(ctx context.Context, token string) (string, error) {
	c, err := h.client(token)
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

// operator reports whether login sees every session.
func (h *Handler) operator(login string) bool {
	return slices.ContainsFunc(h.opts.Operators, func(op string) bool { return strings.EqualFold(op, login) })
}

// canRead reports whether GitHub, asked with si's token, says si can read
// repository full ("owner/name"); answers are cached per person.
func (h *Handler) canRead(ctx context.Context, si *signIn, full string) (bool, error) {
	if h.operator(si.Login) {
		return true, nil
	}
	key := strings.ToLower(si.Login + " " + full)
	if ok, hit := h.access.get(key, h.now()); hit {
		return ok, nil
	}
	owner, name, _ := strings.Cut(full, "/")
	c, err := h.client(si.Token)
	if err != nil {
		return false, err
	}
	rp, resp, err := c.Repositories.Get(ctx, owner, name)
	switch {
	case resp != nil && resp.StatusCode == http.StatusUnauthorized:
		return false, errRefused
	case resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden):
		h.access.put(key, false, h.now())
		return false, nil
	case err != nil:
		return false, fmt.Errorf("GET /repos/%s: %w", full, err)
	}
	ok := rp.GetPermissions()["pull"] || !rp.GetPrivate()
	h.access.put(key, ok, h.now())
	return ok, nil
}

// visible returns the repositories of repos si can read (nil for an
// operator: all of them), asking GitHub about at most askAtOnce at a time.
func (h *Handler) visible(ctx context.Context, si *signIn, repos []string) ([]string, error) {
	if h.operator(si.Login) {
		return nil, nil
	}
	ok := make([]bool, len(repos))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(askAtOnce)
	for i, full := range repos {
		g.Go(func() error {
			var err error
			ok[i], err = h.canRead(gctx, si, full)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := []string{}
	for i, full := range repos {
		if ok[i] {
			out = append(out, full)
		}
	}
	return out, nil
}

// askAtOnce bounds the GitHub calls one list page makes at a time.
const askAtOnce = 8

// accessCache remembers GitHub's answers for a while.
type accessCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]accessEntry
}

type accessEntry struct {
	ok bool
	at time.Time
}

func newAccessCache(ttl time.Duration) *accessCache {
	return &accessCache{ttl: ttl, m: map[string]accessEntry{}}
}

func (c *accessCache) get(key string, now time.Time) (ok, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.m[key]
	if !found || now.Sub(e.at) >= c.ttl {
		return false, false
	}
	return e.ok, true
}

func (c *accessCache) put(key string, ok bool, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 10000 {
		for k, e := range c.m {
			if now.Sub(e.at) >= c.ttl {
				delete(c.m, k)
			}
		}
	}
	c.m[key] = accessEntry{ok: ok, at: now}
}
