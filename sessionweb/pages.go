package sessionweb

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// states are the run states a list can be filtered by.
var states = []string{store.StateActive, store.StateWaiting, store.StateDone, store.StateFailed, store.StateCancelled}

// list serves GET /sessions (the page's base): the sessions of its forge
// the person may see, newest first.
func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	si := h.current(r)
	if si == nil {
		h.signedOut(w, r, "")
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	f := store.SessionFilter{Repo: q.Get("repo"), State: q.Get("state"), InstallationSign: h.opts.InstallationSign,
		Limit: h.opts.PageSize + 1, Offset: (page - 1) * h.opts.PageSize}
	repos, err := h.st.SessionRepos(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f.Visible, err = h.visible(ctx, si, repos)
	if errors.Is(err, errRefused) {
		h.refused(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows, err := h.st.ListSessions(ctx, f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := listView{Site: h.site(), Login: si.Login, Repo: f.Repo, State: f.State, States: states, Repos: repos, Page: page}
	if f.Visible != nil {
		v.Repos = f.Visible
	}
	if len(rows) > h.opts.PageSize {
		rows = rows[:h.opts.PageSize]
		v.Older = h.pageURL(q, page+1)
	}
	if page > 1 {
		v.Newer = h.pageURL(q, page-1)
	}
	for _, s := range rows {
		if h.own(s.InstallationID) { // the store kept only these
			v.Rows = append(v.Rows, h.row(s))
		}
	}
	h.render(w, http.StatusOK, "list", v)
}

func (h *Handler) pageURL(q url.Values, page int) string {
	q2 := url.Values{}
	for k, vs := range q {
		q2[k] = vs
	}
	q2.Set("page", strconv.Itoa(page))
	return h.base + "?" + q2.Encode()
}

// detail serves GET /sessions/{id}: the timeline, to a person who may read
// the session's repository (403 otherwise, 404 for no such session or
// another forge's). A link to another forge's session is sent on to its
// page (Options.Elsewhere) before any sign-in: the progress comment links
// every run under /sessions.
func (h *Handler) detail(w http.ResponseWriter, r *http.Request) {
	si := h.current(r)
	if si == nil && h.opts.Elsewhere == "" {
		h.signedOut(w, r, "")
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.noSuchSession(w, r, si)
		return
	}
	ctx := r.Context()
	sess, err := h.st.Session(ctx, id)
	switch {
	case err == nil && !h.own(sess.InstallationID) && h.opts.Elsewhere != "":
		http.Redirect(w, r, h.opts.Elsewhere+"/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
		return
	case si == nil:
		h.signedOut(w, r, "")
		return
	case errors.Is(err, store.ErrNotFound) || (err == nil && !h.own(sess.InstallationID)):
		h.noSuchSession(w, r, si)
		return
	case err != nil:
		h.fail(w, r, err)
		return
	}
	ok, err := h.canRead(ctx, si, sess.FullRepo())
	if errors.Is(err, errRefused) {
		h.refused(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !ok {
		h.render(w, http.StatusForbidden, "message", messageView{Site: h.site(), Login: si.Login, Title: "Not yours to see",
			Text: h.forge.name() + " says you cannot read the repository of this session."})
		return
	}
	h.stream(w, r, si.Login, sess)
}

// stream writes the detail page in two parts: the session's facts at once
// (the row is read already), then its events, which for a session at its
// bound take most of the time to read and render. The status is sent with
// the first part; a failure after it ends the page with a line saying so.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, login string, sess *store.Session) {
	top := detailView{Site: h.site(), Login: login, Title: session.IssueTitle(r.Context(), h.st, sess.ID), Row: h.row(sess),
		Refresh: sess.Running()}
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "detail_top", top); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	rec, err := session.Load(r.Context(), h.st, sess.ID)
	if err == nil {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err = pages.ExecuteTemplate(bw, "detail_rest", h.timeline(login, rec)); err == nil {
			err = bw.Flush()
		}
	}
	if err != nil && r.Context().Err() == nil {
		h.log.Error("sessions page: the session's events", "session", sess.ID, "err", err)
		_, _ = io.WriteString(w, "<p class=\"fail\">The rest of this session could not be read; reload the page.</p>")
	}
}

// issueURL links an issue on the forge's web.
func (h *Handler) issueURL(s *store.Session) string {
	return h.forge.issueURL(s.Owner, s.Repo, s.Issue)
}

// noSuchSession answers 404 (the sign-in page when signed out).
func (h *Handler) noSuchSession(w http.ResponseWriter, r *http.Request, si *signIn) {
	if si == nil {
		h.signedOut(w, r, "")
		return
	}
	h.render(w, http.StatusNotFound, "message", messageView{Site: h.site(), Login: si.Login, Title: "No such session"})
}
