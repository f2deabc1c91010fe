package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// Headless Chromium (Debian package chromium, driven over the DevTools
// protocol by chromedp) uses the sessions page of a real `bot serve`
// listener: signs in with the fake GitHub's OAuth flow, sees the list, opens
// the session, expands a step and an event; at a phone's width the page
// does not scroll sideways, and with a dark colour scheme it is dark.
// Skipped without chromium unless ISSUESMITH_REQUIRE_CHROMIUM=1 (CI);
// ISSUESMITH_SESSIONS_SCREENSHOT=FILE keeps a PNG of the opened session.
func TestSessionsPageInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("ISSUESMITH_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium is not installed (Debian: apt-get install chromium)")
		}
		t.Skip("chromium is not installed")
	}
	gh := ghtest.New(t, ghtest.Options{})
	gh.AddRepo(ghtest.Repo{Owner: "acme", Name: "web"})
	gh.AddUser("alice", "acme/web")
	gh.SignInAs("alice")
	model := llmtest.NewServer(t, nil, llmtest.WithModels("test-model"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	public := "http://" + ln.Addr().String()
	gh.SetOAuthCallback(public + "/sessions/callback")
	id, secret := gh.OAuthClient()
	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL(), "ISSUESMITH_PUBLIC_URL="+public,
		"ISSUESMITH_OAUTH_CLIENT_ID="+id, "ISSUESMITH_OAUTH_CLIENT_SECRET="+secret)
	srv, err := New(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), Tuning{})
	require.NoError(t, err)
	sid := recordSample(t, srv)

	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil { // not what this test checks: clients may still hold connections
			t.Logf("serve: %v", err)
		}
	})

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	bctx, cancelTimeout := context.WithTimeout(bctx, 2*time.Minute)
	defer cancelTimeout()

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, steps...))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err)
		return s
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](js))
		require.NoError(t, err)
		return s
	}
	do(chromedp.Navigate(public + "/sessions"))
	require.Contains(t, text("main"), "Sign in with GitHub")
	do(chromedp.Click(chromedp.CSS(`a[href^="/sessions/login"]`)), // → the fake GitHub → back, signed in
		chromedp.WaitVisible(chromedp.CSS("table")))
	list := text("table")
	require.Contains(t, list, "acme/web")
	require.Contains(t, list, "dana")
	do(chromedp.Click(chromedp.CSS(`a[href="/sessions/`+strconv.FormatInt(sid, 10)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("details.step")))
	require.Equal(t, "false", eval(`String(document.querySelector("details.step").open)`))
	do(chromedp.Click(chromedp.CSS("details.step > summary")))
	require.Equal(t, "true", eval(`String(document.querySelector("details.step").open)`))
	do(chromedp.Click(chromedp.CSS("details.step details > summary")),
		chromedp.WaitVisible(chromedp.CSS("details.step details pre")))
	require.Contains(t, text("details.step details pre"), "The handler drops the error")

	if keep := os.Getenv("ISSUESMITH_SESSIONS_SCREENSHOT"); keep != "" {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(keep, png, 0o600))
	}

	do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(3)),
		chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("details.step")))
	require.Equal(t, "false", eval(`String(document.documentElement.scrollWidth > window.innerWidth)`),
		"at a phone's width the page does not scroll sideways")
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	require.Equal(t, "rgb(13, 17, 23)", eval(`getComputedStyle(document.body).backgroundColor`))
}

// recordSample records an ended session of acme/web#7 into the server's
// store, as a run would: a model call, a tool call, an edit, a check.
func recordSample(t *testing.T, srv *Server) int64 {
	t.Helper()
	ctx := t.Context()
	r := session.Start(ctx, srv.store(), store.Session{InstallationID: 42, RunID: 1, Owner: "acme", Repo: "web", Issue: 7,
		Requester: "dana"}, srv.sessions)
	require.NotNil(t, r)
	r.Begin(ctx, session.StageExplore, "explore")
	m := r.Model(sampleModel{})
	_, err := m.Chat(ctx, llm.Request{Role: llm.RoleExplorer, Messages: []llm.Message{
		{Role: llm.System, Content: "You are the explorer."}, {Role: llm.User, Content: "The server crashes on empty input."}}})
	require.NoError(t, err)
	r.Finish(ctx)
	r.Begin(ctx, session.StageCode, "code")
	r.Edit(ctx, session.Edit{Path: "handler.go", Applied: true, Where: "lines 12-14",
		Diff: "--- a/handler.go\n+++ b/handler.go\n@@ -12,3 +12,5 @@\n-\treturn nil\n+\tif err != nil {\n+\t\treturn err\n+\t}\n"})
	r.Edit(ctx, session.Edit{Path: "main.go", Refused: "the SEARCH text matches nowhere", Feedback: "Nearest lines: 3-7 ..."})
	r.Check(ctx, session.Check{Name: "go build", Command: "go build ./...", OK: true}, 2*time.Second)
	r.Check(ctx, session.Check{Name: "go vet", Command: "go vet ./...", OK: false, Output: "handler.go:13: unreachable code"}, time.Second)
	r.Finish(ctx)
	r.End(ctx, store.StateDone) // an ended session does not refresh while the test clicks
	return r.ID()
}

// sampleModel answers with a fixed reply and usage.
type sampleModel struct{}

func (sampleModel) Chat(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: "The handler drops the error; fix handler.go."},
		Model: "test-model", Usage: llm.Usage{PromptTokens: 5210, CachedTokens: 4096, CompletionTokens: 88}, Cost: 0.0042,
		FinishReason: llm.FinishStop}, nil
}
