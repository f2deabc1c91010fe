package ghtest

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// A browser's own sign-in to the fake GitHub, for a person rather than a
// test: GET /login?login=NAME&return_to=URL (github.com's sign-in page
// takes the same two parameters) signs the browser in as NAME without a
// password — a cookie, so two browsers, or two cookie jars, can be two
// people at once — and goes on to URL. Authorize answers for the browser's
// sign-in when it has one, else for SignInAs's. With ChooseSignIn, a
// browser signed out of the fake is shown its people to sign in as instead
// of failing the test.

// browserCookie holds the login the browser signed in to the fake as.
const browserCookie = "ghtest_signed_in"

// SignInLink is the fake's sign-in page for login (a user of AddUser),
// going on to next once signed in: next must be on the host of the App's
// callback URL (SetOAuthCallback) or a path on the fake itself.
func (s *Server) SignInLink(login, next string) string {
	return strings.TrimSuffix(s.URL(), "/") + "/login?" + url.Values{"login": {login}, "return_to": {next}}.Encode()
}

// ChooseSignIn makes authorize, when no one is signed in, answer with a
// page listing the fake's people as links to sign in as each (and come
// back to the authorization), as github.com sends a signed-out browser to
// its sign-in page.
func (s *Server) ChooseSignIn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	s.st.oauth.choose = true
}

// browserLogin is who r's browser is signed in to the fake as (s.mu
// held): its cookie's person, else SignInAs's, else "".
func (s *Server) browserLogin(r *http.Request) string {
	o := &s.st.oauth
	if c, err := r.Cookie(browserCookie); err == nil {
		if _, known := o.users[c.Value]; known {
			return c.Value
		}
	}
	return o.signedIn
}

// signIn serves GET /login: a person's browser signs in as ?login= and
// goes on to ?return_to=. Neither an unknown person nor a return address
// elsewhere fails the test (a person may type them): they answer 404 and
// 400.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) int {
	o := &s.st.oauth
	q := r.URL.Query()
	login, next := q.Get("login"), q.Get("return_to")
	if _, known := o.users[login]; !known {
		http.Error(w, "There is no user "+login+" on this fake GitHub.", http.StatusNotFound)
		return http.StatusNotFound
	}
	if !o.localReturn(next) {
		http.Error(w, "return_to must lead back to the App or to this fake GitHub.", http.StatusBadRequest)
		return http.StatusBadRequest
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: login, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Expires: time.Now().Add(8 * time.Hour)})
	http.Redirect(w, r, next, http.StatusFound)
	return http.StatusFound
}

// localReturn: next is a path on the fake, or on the callback URL's host.
func (o *oauthState) localReturn(next string) bool {
	u, err := url.Parse(next)
	switch {
	case err != nil || next == "" || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n"):
		return false
	case u.Scheme == "" && u.Host == "":
		return strings.HasPrefix(next, "/")
	}
	cb, err := url.Parse(o.callback)
	return err == nil && o.callback != "" && (u.Scheme == "http" || u.Scheme == "https") &&
		u.Scheme == cb.Scheme && u.Host == cb.Host
}

var choosePage = template.Must(template.New("choose").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to the fake GitHub</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
<h1>Sign in to the fake GitHub</h1>
<p>This is a fake GitHub on loopback (<code>ghapp/ghtest</code>, as <code>bot try</code> runs it). Choose who you are;
no password is asked.</p>
<ul>{{range .}}<li><a href="{{.URL}}">{{.Login}}</a>{{if .Repos}} (can read {{.Repos}}){{else}} (can read no repository){{end}}</li>{{end}}</ul>
</body></html>
`))

// chooseSignIn answers a signed-out authorize with the fake's people,
// each a link that signs in and comes back to r (s.mu held).
func (s *Server) chooseSignIn(w http.ResponseWriter, r *http.Request) int {
	type person struct{ Login, Repos, URL string }
	var people []person
	for login, repos := range s.st.oauth.users {
		people = append(people, person{Login: login, Repos: strings.ReplaceAll(repos, ",", ", "),
			URL: "/login?" + url.Values{"login": {login}, "return_to": {r.URL.RequestURI()}}.Encode()})
	}
	slices.SortFunc(people, func(a, b person) int { return strings.Compare(a.Login, b.Login) })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = choosePage.Execute(w, people)
	return http.StatusOK
}
