package sessionweb

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// browser is a person's browser against a real Gitea and the page: a
// cookie jar, redirects followed as a browser follows them.
type browser struct {
	t     *testing.T
	c     *http.Client
	gitea string // Gitea's root URL, with the trailing slash
}

func newBrowser(t *testing.T, giteaURL string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, c: &http.Client{Jar: jar}, gitea: giteaURL}
}

// get fetches target (following redirects) and returns the last answer
// and its body.
func (b *browser) get(target string) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.Get(target)
	require.NoError(b.t, err)
	return resp, b.read(resp)
}

func (b *browser) post(target string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(target, form)
	require.NoError(b.t, err)
	return resp, b.read(resp)
}

func (b *browser) read(resp *http.Response) string {
	b.t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return string(body)
}

// signInToGitea signs login in on Gitea's own sign-in form (password
// "<login>-password-1", giteaserver.User's), with whatever hidden fields
// the form carries (Gitea before 1.26 sent a _csrf; 1.26 checks the
// request's origin instead).
func (b *browser) signInToGitea(login string) {
	b.t.Helper()
	resp, body := b.get(b.gitea + "user/login")
	require.Equal(b.t, http.StatusOK, resp.StatusCode, body)
	form := hiddenFields(formOf(body, "user/login"))
	form.Set("user_name", login)
	form.Set("password", login+"-password-1")
	resp, body = b.post(b.gitea+"user/login", form)
	require.Equal(b.t, http.StatusOK, resp.StatusCode, body)
	require.NotContains(b.t, resp.Request.URL.Path, "/user/login", "Gitea kept %s on its sign-in form", login)
}

// signInToPage follows the page's sign-in from page+"/login": Gitea's
// authorize, its grant page the first time (granted with its own form's
// fields), and the way back through the callback to the list. It returns
// the list's answer and body.
func (b *browser) signInToPage(page string) (*http.Response, string) {
	b.t.Helper()
	resp, body := b.get(page + "/login?return=" + url.QueryEscape(pathOf(b.t, page)))
	if strings.Contains(resp.Request.URL.Path, "/login/oauth/authorize") {
		require.Equal(b.t, http.StatusOK, resp.StatusCode, body)
		form := hiddenFields(formOf(body, "login/oauth/grant"))
		require.NotEmpty(b.t, form.Get("client_id"), "Gitea's grant form: %s", body)
		form.Set("granted", "true")
		resp, body = b.post(b.gitea+"login/oauth/grant", form)
	}
	return resp, body
}

func pathOf(t *testing.T, page string) string {
	t.Helper()
	u, err := url.Parse(page)
	require.NoError(t, err)
	return u.Path
}

var (
	formTag   = regexp.MustCompile(`(?s)<form[^>]*action="([^"]*)"[^>]*>(.*?)</form>`)
	hiddenTag = regexp.MustCompile(`<input[^>]*type="hidden"[^>]*>`)
	attrOf    = func(name string) *regexp.Regexp { return regexp.MustCompile(`\b` + name + `="([^"]*)"`) }
	nameAttr  = attrOf("name")
	valueAttr = attrOf("value")
)

// formOf returns the inside of the first form whose action ends in action.
func formOf(page, action string) string {
	for _, m := range formTag.FindAllStringSubmatch(page, -1) {
		if strings.HasSuffix(html.UnescapeString(m[1]), action) {
			return m[2]
		}
	}
	return ""
}

// hiddenFields are a form's hidden inputs as a browser sends them.
func hiddenFields(form string) url.Values {
	v := url.Values{}
	for _, in := range hiddenTag.FindAllString(form, -1) {
		n := nameAttr.FindStringSubmatch(in)
		if n == nil {
			continue
		}
		val := ""
		if m := valueAttr.FindStringSubmatch(in); m != nil {
			val = html.UnescapeString(m[1])
		}
		v.Set(html.UnescapeString(n[1]), val)
	}
	return v
}
