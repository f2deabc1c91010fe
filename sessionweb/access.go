package sessionweb

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// operator reports whether login sees every session of the page's forge.
func (h *Handler) operator(login string) bool {
	return slices.ContainsFunc(h.opts.Operators, func(op string) bool { return strings.EqualFold(op, login) })
}

// canRead reports whether the forge, asked with si's token, says si can
// read repository full ("owner/name"); answers are cached per person.
func (h *Handler) canRead(ctx context.Context, si *signIn, full string) (bool, error) {
	if h.operator(si.Login) {
		return true, nil
	}
	key := strings.ToLower(si.Login + " " + full)
	if ok, hit := h.access.get(key, h.now()); hit {
		return ok, nil
	}
	ok, err := h.forge.canRead(ctx, si.Token, full)
	if err != nil {
		return false, err
	}
	h.access.put(key, ok, h.now())
	return ok, nil
}

// visible returns the repositories of repos si can read (nil for an
// operator: all of them), asking the forge about at most askAtOnce at a
// time.
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

// askAtOnce bounds the forge calls one list page makes at a time.
const askAtOnce = 8

// own reports whether a session of installation id is this page's forge's.
func (h *Handler) own(id int64) bool {
	switch {
	case h.opts.InstallationSign > 0:
		return id > 0
	case h.opts.InstallationSign < 0:
		return id < 0
	}
	return true
}

// accessCache remembers the forge's answers for a while.
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
