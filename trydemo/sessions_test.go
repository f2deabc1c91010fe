package trydemo

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// visit is one page a browser ended on: its address, status and text.
type visit struct {
	URL    string
	Status int
	Body   string
}

// browser is a client with its own cookie jar, following redirects as a
// browser does: one person.
func browser() (*http.Client, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	return &http.Client{Jar: jar, Timeout: time.Minute}, nil
}

func open(c *http.Client, u string) (visit, error) {
	resp, err := c.Get(u)
	if err != nil {
		return visit{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return visit{URL: resp.Request.URL.String(), Status: resp.StatusCode, Body: html.UnescapeString(string(b))}, err
}

// With Sessions, the run's own /sessions page opens to two people through
// the fake GitHub's sign-in and the page's real OAuth sign-in: octocat, who
// can read the repository, sees the run on the list and its timeline with
// the issue's title; mallory, who cannot, is refused the session and sees
// an empty list. The try page links both, the progress comment links the
// session, and a browser signing in from the page itself is asked who to
// be. ISSUESMITH_TRY_SESSIONS_SHOTS=DIR keeps Chromium's screenshots of the
// signed-in list (desktop and phone width) and of the refusal.
func TestSessionsOpenToTwoPeople(t *testing.T) {
	var logs bytes.Buffer
	seen := map[string]visit{}
	var page []byte
	// The caches bot try keeps (Options.CacheDir's default), as the
	// screenshot's run: only TestRunEndsInAPullRequestReadyForReview starts
	// from empty ones.
	res, err := Run(t.Context(), Options{Dir: t.TempDir(),
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Sessions: func(ctx context.Context, res *Result) error {
			if len(res.SignIns) != 2 {
				return fmt.Errorf("%d sign-in links, want 2", len(res.SignIns))
			}
			var err error
			if page, err = Render(res); err != nil {
				return err
			}
			id := strconv.FormatInt(res.Session.Session.ID, 10)
			for _, si := range res.SignIns {
				c, err := browser()
				if err != nil {
					return err
				}
				home := res.SessionsURL
				for _, v := range []struct{ key, url string }{
					{si.Login + " landed", si.URL}, {si.Login + " list", home}, {si.Login + " session", home + "/" + id}} {
					if seen[v.key], err = open(c, v.url); err != nil {
						return err
					}
				}
			}
			c, err := browser()
			if err != nil {
				return err
			}
			if seen["signed out"], err = open(c, res.SessionsURL+"/login"); err != nil {
				return err
			}
			return screenshots(ctx, t, res.SignIns)
		}})
	require.NoError(t, err, "server log:\n%s", logs.String())
	require.NotContains(t, logs.String(), "the fakes were asked", "no request the fakes do not serve")
	id := strconv.FormatInt(res.Session.Session.ID, 10)

	require.Len(t, res.SignIns, 2)
	require.Equal(t, SignIn{Login: "octocat", CanRead: true, URL: res.SignIns[0].URL, Sees: res.SignIns[0].Sees}, res.SignIns[0])
	require.Equal(t, "mallory", res.SignIns[1].Login)
	require.False(t, res.SignIns[1].CanRead)

	landed := seen["octocat landed"]
	require.Equal(t, http.StatusOK, landed.Status)
	require.True(t, strings.HasSuffix(landed.URL, "/sessions"), landed.URL)
	require.Contains(t, landed.Body, "signed in as <b>octocat</b>")
	require.Contains(t, landed.Body, `href="/sessions/`+id+`">#`+id+`</a>`, "the run's session on the list")
	require.Contains(t, landed.Body, "octo-org/units")
	require.NotContains(t, landed.Body, "No sessions to show")
	tl := seen["octocat session"]
	require.Equal(t, http.StatusOK, tl.Status)
	require.Contains(t, tl.Body, issueTitle, "the timeline names the issue")
	require.Contains(t, tl.Body, "go vet", "the coder's checks are on the timeline")

	refused := seen["mallory landed"]
	require.Equal(t, http.StatusForbidden, refused.Status)
	require.True(t, strings.HasSuffix(refused.URL, "/sessions/"+id), refused.URL)
	require.Contains(t, refused.Body, "signed in as <b>mallory</b>")
	require.Contains(t, refused.Body, "Not yours to see")
	require.Contains(t, refused.Body, "GitHub says you cannot read the repository of this session.")
	require.NotContains(t, refused.Body, issueTitle)
	list := seen["mallory list"]
	require.Equal(t, http.StatusOK, list.Status)
	require.Contains(t, list.Body, "No sessions to show.")
	require.NotContains(t, list.Body, "octo-org/units")

	chooser := seen["signed out"]
	require.Equal(t, http.StatusOK, chooser.Status)
	require.Contains(t, chooser.Body, "Sign in to the fake GitHub")
	require.Contains(t, chooser.Body, ">octocat</a> (can read octo-org/units)")
	require.Contains(t, chooser.Body, ">mallory</a> (can read no repository)")

	p := html.UnescapeString(string(page))
	require.Contains(t, p, `<a href="#signin">Open it on /sessions</a>`)
	require.Contains(t, p, `<a href="`+res.SignIns[0].URL+`">Sign in as octocat</a> (can read octo-org/units)`)
	require.Contains(t, p, `<a href="`+res.SignIns[1].URL+`">Sign in as mallory</a> (cannot read octo-org/units)`)
	var progress string
	for _, c := range res.Comments {
		if c.User == res.BotLogin && strings.Contains(c.Body, "issuesmith: done") {
			progress = c.Body
		}
	}
	require.Contains(t, progress, "/sessions/"+id, "the progress comment links the session")
	for _, tok := range res.issued {
		require.NotContains(t, p, tok)
	}
}

// screenshots keeps Chromium's pictures of the pages when
// ISSUESMITH_TRY_SESSIONS_SHOTS names a folder and chromium is installed:
// each a fresh profile following a sign-in link.
func screenshots(ctx context.Context, t *testing.T, signIns []SignIn) error {
	dir := os.Getenv("ISSUESMITH_TRY_SESSIONS_SHOTS")
	bin, err := exec.LookPath("chromium")
	if dir == "" || err != nil {
		return nil
	}
	for _, s := range []struct {
		name, size string
		si         SignIn
	}{{"octocat-desktop", "1280,900", signIns[0]}, {"octocat-phone", "390,844", signIns[0]},
		{"mallory-desktop", "1280,500", signIns[1]}} {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		out, err := exec.CommandContext(cctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
			"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--window-size="+s.size,
			"--screenshot="+filepath.Join(dir, s.name+".png"), s.si.URL).CombinedOutput()
		cancel()
		if err != nil {
			return fmt.Errorf("chromium %s: %w\n%s", s.name, err, out)
		}
	}
	return nil
}
