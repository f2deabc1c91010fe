package sessionweb

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// stateTTL bounds the time between leaving for the forge and coming back.
const stateTTL = 10 * time.Minute

// login starts the OAuth web flow: a fresh state and PKCE verifier, kept in
// a sealed cookie bound to this browser, and a redirect to the forge.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	p := pending{State: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier(),
		Return: localPath(h.base, r.URL.Query().Get("return")), Expires: h.now().Add(stateTTL)}
	if err := h.setCookie(w, stateCookie, p, p.Expires); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, h.oauth.AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier)), http.StatusSeeOther)
}

// localPath keeps a return address on the page at base: anything else
// (another host, a scheme-relative //host, another page) becomes base.
func localPath(base, p string) string {
	mine := p == base || strings.HasPrefix(p, base+"/") || strings.HasPrefix(p, base+"?")
	if !mine || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return base
	}
	return p
}

// callback finishes the flow. A state that does not match this browser's
// sign-in under way, was used before or expired, and a code the forge refuses
// (wrong, expired or replayed), answer 400 and store nothing.
func (h *Handler) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var p pending
	c, err := r.Cookie(stateCookie)
	switch {
	case err != nil || h.seal.open(stateCookie, c.Value, &p) != nil:
		h.badSignIn(w, "This sign-in did not start in this browser, or took too long. Sign in again.")
		return
	case q.Get("state") == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.State)) != 1:
		h.badSignIn(w, "The sign-in's state does not match. Sign in again.")
		return
	case !h.now().Before(p.Expires) || !h.useState(p.State, p.Expires):
		h.badSignIn(w, "This sign-in was already used or has expired. Sign in again.")
		return
	}
	h.clearCookie(w, stateCookie)
	if q.Get("error") != "" || q.Get("code") == "" {
		h.badSignIn(w, h.forge.name()+" did not sign you in. Sign in again.")
		return
	}
	ctx := context.WithValue(r.Context(), oauth2.HTTPClient, h.opts.HTTPClient)
	tok, err := h.oauth.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(p.Verifier))
	if err != nil {
		h.log.Info("sessions: the forge refused a sign-in code", "forge", h.forge.name(), "err", codeError(err))
		h.badSignIn(w, h.forge.name()+" refused the sign-in code (wrong, expired or already used). Sign in again.")
		return
	}
	login, err := h.forge.whoami(r.Context(), tok.AccessToken)
	if err != nil {
		h.log.Warn("sessions: asking the forge who signed in", "forge", h.forge.name(), "err", err)
		h.badSignIn(w, h.forge.name()+" did not say who you are. Sign in again.")
		return
	}
	expires := h.now().Add(h.opts.SignInTTL)
	if !tok.Expiry.IsZero() && tok.Expiry.Before(expires) {
		expires = tok.Expiry
	}
	if err := h.setCookie(w, signInCookie, signIn{Login: login, Token: tok.AccessToken, Expires: expires}, expires); err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("sessions: signed in", "forge", h.forge.name(), "login", login)
	http.Redirect(w, r, p.Return, http.StatusSeeOther)
}

// codeError names the forge's refusal without the request's secrets.
func codeError(err error) string {
	if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok && re.ErrorCode != "" {
		return re.ErrorCode
	}
	return "token exchange failed"
}

// useState marks state used; false when it was before.
func (h *Handler) useState(state string, until time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for s, t := range h.used {
		if now.After(t) {
			delete(h.used, s)
		}
	}
	if _, seen := h.used[state]; seen {
		return false
	}
	h.used[state] = until
	return true
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	h.clearCookie(w, signInCookie)
	http.Redirect(w, r, h.base, http.StatusSeeOther)
}

// signedOut answers with the sign-in page (the only page signed out).
func (h *Handler) signedOut(w http.ResponseWriter, r *http.Request, msg string) {
	h.render(w, http.StatusUnauthorized, "signin", signinView{Site: h.site(), Message: msg,
		Return: localPath(h.base, r.URL.RequestURI())})
}

// refused: the forge no longer accepts the person's token; back to sign-in.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request) {
	h.clearCookie(w, signInCookie)
	h.signedOut(w, r, h.forge.name()+" no longer accepts your sign-in. Sign in again.")
}

func (h *Handler) badSignIn(w http.ResponseWriter, msg string) {
	h.render(w, http.StatusBadRequest, "signin", signinView{Site: h.site(), Message: msg, Return: h.base})
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	h.log.Error("sessions page", "path", r.URL.Path, "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}
