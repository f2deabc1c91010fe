package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/sessionweb"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// sessionPage is one sessions page and the path it answers under.
type sessionPage struct {
	base string
	h    http.Handler
}

// giteaSessions is the Gitea page's path beside the GitHub App's
// /sessions; a bot that serves Gitea alone serves it at /sessions.
const giteaSessions = "/gitea-sessions"

// sessionsPages are the sessions pages: GitHub's at /sessions (with the
// App), the Gitea server's at /gitea-sessions beside it or at /sessions
// alone (with GITEA_URL), each the page when its settings are set, else a
// 404 saying why, which off also returns for /readyz. Each page shows its
// own forge's sessions; a link to the other's is sent on to its page.
func sessionsPages(cfg *config.Server, st sessionweb.Store, log *slog.Logger) (pages []sessionPage, off []string, err error) {
	ghOff, gtOff := cfg.Sessions.PageOff(), cfg.Sessions.GiteaPageOff(cfg.GiteaURL)
	withApp := cfg.HasApp() || cfg.GiteaURL == ""
	giteaBase := "/sessions"
	if withApp {
		giteaBase = giteaSessions
	}
	var key []byte // the cookie key derives from the App's private key, else the Gitea token
	if withApp {
		key, err = cfg.Key()
	} else if gtOff == "" {
		var tok string
		tok, err = cfg.GiteaToken()
		key = []byte(tok)
	}
	if err != nil {
		return nil, nil, err
	}
	if withApp {
		page := sessionweb.Off(ghOff)
		if ghOff == "" {
			opts := sessionweb.Options{Store: st, PublicURL: cfg.Sessions.PublicURL, GitHubURL: cfg.GitHubURL,
				ClientID: cfg.Sessions.OAuthClientID, ClientSecret: cfg.Sessions.OAuthClientSecret, Secret: key,
				Operators: cfg.Sessions.Operators, Logger: log, InstallationSign: 1}
			if cfg.GiteaURL != "" && gtOff == "" {
				opts.Elsewhere = giteaBase
			}
			if page, err = sessionweb.New(opts); err != nil {
				return nil, nil, err
			}
		} else {
			off = append(off, ghOff)
		}
		pages = append(pages, sessionPage{base: "/sessions", h: page})
	}
	if cfg.GiteaURL == "" {
		return pages, off, nil
	}
	page := sessionweb.Off(gtOff)
	if gtOff == "" {
		opts := sessionweb.Options{Store: st, PublicURL: cfg.Sessions.PublicURL, Base: giteaBase, GiteaURL: cfg.GiteaURL,
			ClientID: cfg.Sessions.GiteaClientID, ClientSecret: cfg.Sessions.GiteaClientSecret, Secret: key,
			Operators: cfg.Sessions.GiteaOperators, Logger: log.With("forge", "gitea"), InstallationSign: -1}
		if withApp && ghOff == "" {
			opts.Elsewhere = "/sessions"
		}
		if page, err = sessionweb.New(opts); err != nil {
			return nil, nil, err
		}
	} else {
		off = append(off, gtOff)
	}
	return append(pages, sessionPage{base: giteaBase, h: page}), off, nil
}

// sessionOptions are the options every run's session.Recorder gets: the
// configured bound, and a log line and the failure metric when recording
// fails.
func sessionOptions(cfg *config.Server, reg prometheus.Registerer, log *slog.Logger) session.Options {
	failures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "issuesmith_session_record_failures_total",
		Help: "Session events that could not be stored (the run went on without them).",
	})
	reg.MustRegister(failures)
	// Every secret the server holds is redacted by value besides by shape
	// (installation tokens have a published shape).
	secrets := []string{cfg.WebhookSecret, cfg.Sessions.OAuthClientSecret, cfg.Sessions.GiteaClientSecret}
	if key, err := cfg.Model.APIKeyValue(); err == nil {
		secrets = append(secrets, key)
	}
	return session.Options{MaxBytes: cfg.Sessions.MaxBytes, Logger: log, Secrets: secrets,
		OnError: func(error) { failures.Inc() }}
}

// runSessions is what the workflow records of each run: every run's
// session with opts, linked from the progress comment when the page at
// /sessions is on (GitHub's with the App, which sends a Gitea run's link
// on to the Gitea page; the Gitea page when Gitea is served alone).
func runSessions(cfg *config.Server, opts session.Options) *workflow.Sessions {
	rs := &workflow.Sessions{Options: opts}
	atSessions := cfg.Sessions.PageOff()
	if !cfg.HasApp() && cfg.GiteaURL != "" {
		atSessions = cfg.Sessions.GiteaPageOff(cfg.GiteaURL)
	}
	if atSessions == "" {
		rs.PageURL = cfg.Sessions.PublicURL
	}
	return rs
}

// pruneSessions deletes the sessions older than the retention now and then
// every pruneEvery until ctx ends.
func pruneSessions(ctx context.Context, st *store.Store, retention time.Duration, log *slog.Logger) {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		n, err := st.DeleteSessionsBefore(ctx, time.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("sessions: deleting sessions past their retention", "err", err)
		case n > 0:
			log.Info("sessions: deleted sessions past their retention", "sessions", n, "retention", retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

const pruneEvery = 6 * time.Hour

// lateStore is the sessions page's store before and after the database
// answered (a server started without it): errDatabaseAway until then.
type lateStore struct{ s *Server }

func (l lateStore) get() (*store.Store, error) {
	if st := l.s.store(); st != nil {
		return st, nil
	}
	return nil, errDatabaseAway
}

func (l lateStore) Session(ctx context.Context, id int64) (*store.Session, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Session(ctx, id)
}

func (l lateStore) SessionEvents(ctx context.Context, sessionID, after int64, limit int) ([]*store.SessionEvent, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.SessionEvents(ctx, sessionID, after, limit)
}

func (l lateStore) SessionBlobs(ctx context.Context, sessionID int64) (map[string]store.SessionBlob, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.SessionBlobs(ctx, sessionID)
}

func (l lateStore) ListSessions(ctx context.Context, f store.SessionFilter) ([]*store.Session, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.ListSessions(ctx, f)
}

func (l lateStore) SessionRepos(ctx context.Context) ([]string, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.SessionRepos(ctx)
}
