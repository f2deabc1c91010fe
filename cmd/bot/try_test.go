package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bot try --out writes the page of a real run (trydemo's tests check the
// run and the page in detail) and tells the steps on stderr.
func TestTryWritesThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole flow")
	}
	file := filepath.Join(t.TempDir(), "try.html")
	_, stderr, err := execCmd(t, newRootCmd(), "", "try", "--out", file)
	require.NoError(t, err, stderr)
	page, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(page), "the model's answers are scripted")
	require.Contains(t, string(page), "Pull request #2")
	require.Contains(t, stderr, "opened draft pull request #2")
	require.True(t, strings.HasSuffix(stderr, "wrote "+file+"\n"), stderr)
	require.NotContains(t, stderr, "ghs_", "no installation token on the terminal")

	_, _, err = execCmd(t, newRootCmd(), "", "try", "extra")
	require.Error(t, err)
}

// bot try --forge gitea plays the same flow on the fake Gitea (trydemo's
// test checks the run and the page in detail): the page names Gitea, the
// steps tell its deliveries and the WIP: pull request. A forge the demo
// does not play, and --sessions with Gitea, are usage errors.
func TestTryGiteaWritesThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole flow")
	}
	file := filepath.Join(t.TempDir(), "try.html")
	_, stderr, err := execCmd(t, newRootCmd(), "", "try", "--forge", "gitea", "--out", file)
	require.NoError(t, err, stderr)
	page, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(page), "against an in-process fake Gitea")
	require.Contains(t, string(page), "Pull request #2: Convert Fahrenheit back to Celsius")
	require.NotContains(t, string(page), "fake GitHub")
	for _, want := range []string{"fake Gitea, git server and scripted model on loopback",
		"Gitea sent issue_label", "ticked Approve and implement in the plan comment",
		`opened pull request #2, "WIP: Convert Fahrenheit back to Celsius"`, "the bot took WIP: off pull request #2"} {
		require.Contains(t, stderr, want)
	}
	require.True(t, strings.HasSuffix(stderr, "wrote "+file+"\n"), stderr)

	for _, args := range [][]string{{"try", "--forge", "gitlab"}, {"try", "--forge", "gitea", "--sessions"}} {
		_, _, err = execCmd(t, newRootCmd(), "", args...)
		var exit *exitError
		require.ErrorAs(t, err, &exit, "%v", args)
		require.Equal(t, 2, exit.code)
	}
}

// bot try --sessions serves the page, then prints two sign-in links to the
// sessions page of the bot serve it keeps running; followed with a cookie
// jar each, the first shows the run on the list and the second is refused
// the session (trydemo's test checks the pages in detail); Ctrl-C (the
// context's end) stops it without an error.
func TestTrySessionsPrintsTwoSignIns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole flow")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr outBuffer
	cmd := newRootCmd()
	cmd.SetArgs([]string{"try", "--sessions", "--listen", "127.0.0.1:0"})
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		done <- cmd.ExecuteContext(ctx)
		close(ended)
		_, _ = stdout.Write(nil) // wakes the wait below
	}()
	links := regexp.MustCompile(`(?m)^  as (\w+) \(([^)]*)\): (http://\S+)$`)
	var found [][]string
	require.True(t, stdout.wait(5*time.Minute, func(out string) bool {
		select {
		case <-ended:
			return true
		default:
		}
		found = links.FindAllStringSubmatch(out, -1)
		return len(found) == 2
	}), "no two sign-in links:\n%s", stdout.String())
	select {
	case <-ended:
		t.Fatalf("bot try ended: %v\n%s", <-done, stderr.String())
	default:
	}
	out := stdout.String()
	require.Regexp(t, `The run is over; see it at http://127\.0\.0\.1:\d+/ \(Ctrl-C to stop\)\n`+
		`bot serve runs on with its sessions page, http://127\.0\.0\.1:\d+/sessions; sign in through the fake GitHub:\n`, out)
	require.Equal(t, []string{"octocat", "can read octo-org/units"}, found[0][1:3])
	require.Equal(t, []string{"mallory", "cannot read it"}, found[1][1:3])
	page := regexp.MustCompile(`see it at (http://\S+/) `).FindStringSubmatch(out)[1]
	resp, err := http.Get(page)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, html.UnescapeString(string(body)), found[0][3], "the try page links the sign-in")

	for i, want := range []string{"octo-org/units", "Not yours to see"} {
		jar, err := cookiejar.New(nil)
		require.NoError(t, err)
		resp, err := (&http.Client{Jar: jar}).Get(found[i][3])
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, string(body), "signed in as <b>"+found[i][1]+"</b>")
		require.Contains(t, string(body), want)
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(time.Minute):
		t.Fatal("bot try did not stop")
	}
	require.Contains(t, stderr.String(), "bot serve runs again with its sessions page on")
	require.NotContains(t, stdout.String()+stderr.String(), "ghu_", "no person's token on the terminal")
}
