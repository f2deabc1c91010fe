package trydemo

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/server"
)

// outsider is the fake GitHub's second person: signed in like anyone, but
// GitHub lets them read no repository.
const outsider = "mallory"

// SignIn is a link that signs a browser in to the run's /sessions page as
// one person of the fake GitHub: the fake's sign-in page (no password),
// then the page's real GitHub sign-in (OAuth with state and PKCE), then
// where the page leads them.
type SignIn struct {
	Login string
	// CanRead: GitHub, asked with this person's own token, says they may
	// read the demo's repository.
	CanRead bool
	URL     string
	// Sees is what following URL shows: the list, or the session refused.
	Sees string
}

// sessionSettings turn bot serve's sessions page on for the demo: its
// public URL is the loopback address, its OAuth client the fake GitHub's,
// on which the person who filed the issue can read the repository and
// outsider can read nothing. A browser that signs in from the page itself
// chooses who to be on the fake's sign-in page.
func (d *demo) sessionSettings() []string {
	public := "http://" + d.addr
	d.gh.SetOAuthCallback(public + "/sessions/callback")
	d.gh.AddUser(person, owner+"/"+name)
	d.gh.AddUser(outsider)
	d.gh.ChooseSignIn()
	id, secret := d.gh.OAuthClient()
	return []string{"ISSUESMITH_PUBLIC_URL=" + public, "ISSUESMITH_OAUTH_CLIENT_ID=" + id,
		"ISSUESMITH_OAUTH_CLIENT_SECRET=" + secret}
}

// signIns are the two people's links: the one who can read the repository
// lands on the list, the one who cannot on the run's session, refused.
func (d *demo) signIns(sessionID int64) []SignIn {
	login := func(then string) string {
		return "http://" + d.addr + "/sessions/login?" + url.Values{"return": {then}}.Encode()
	}
	return []SignIn{
		{Login: person, CanRead: true, URL: d.gh.SignInLink(person, login("/sessions")),
			Sees: "the sessions list with this run; its timeline is one click away"},
		{Login: outsider, URL: d.gh.SignInLink(outsider, login("/sessions/"+strconv.FormatInt(sessionID, 10))),
			Sees: "this run's session, refused"},
	}
}

// openSessions starts bot serve again on the run's address, with the same
// settings and database (the first one stopped so that the run's session
// was complete when read), hands res with its sign-in links to
// opts.Sessions and stops the server when that returns or ctx ends.
func (d *demo) openSessions(ctx context.Context, cfg *config.Server, opts Options, res *Result) error {
	var hushed atomic.Bool
	log := slog.New(slog.DiscardHandler)
	if opts.Log != nil {
		log = slog.New(hushHandler{opts.Log.Handler(), &hushed})
	}
	srv, err := server.New(ctx, cfg, log, tuning)
	if err != nil {
		return fmt.Errorf("bot serve's start for the sessions page: %w", err)
	}
	l, err := net.Listen("tcp", d.addr)
	if err != nil {
		srv.Close()
		return fmt.Errorf("the sessions page's address: %w", err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, l) }()
	if err = d.wait(ctx, "bot serve to be ready again", d.ready); err == nil {
		res.SignIns, res.SessionsURL = d.signIns(res.Session.Session.ID), "http://"+d.addr+"/sessions"
		d.step("bot serve runs again with its sessions page on, until you stop it")
		err = opts.Sessions(sctx, res)
	}
	hushed.Store(true)
	stop()
	if serr := <-served; err == nil && serr != nil {
		err = fmt.Errorf("bot serve: %w", serr)
	}
	return err
}
