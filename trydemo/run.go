package trydemo

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/internal/tb"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/server"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/work"
)

//go:embed script.yaml
var scriptYAML []byte

const (
	modelName     = "scripted-demo-model"
	webhookSecret = "bot-try-webhook-secret"
)

// Options tune a run; the zero value is what `bot try` uses.
type Options struct {
	// Dir holds the run's temporary directory ("" for the system's); it is
	// removed when Run returns.
	Dir string
	// Log receives the server's log; nil discards it.
	Log *slog.Logger
	// Progress is told each step as it happens (for a terminal), a
	// work.EventStage whose Detail says it; nil ignores.
	Progress work.Progress
	// Timeout bounds the whole run (0: five minutes).
	Timeout time.Duration
	// CacheDir is the sandbox's caches (ISSUESMITH_CACHE_DIR): the sample's
	// Go build cache is kept there between runs, so only the first run
	// compiles what go vet and go build need. "" is
	// <user cache dir>/issuesmith/try, else a folder of the run's own.
	CacheDir string
	// Sessions, when set, opens the run's /sessions page to two people
	// (sessions.go): bot serve starts with the page on, and once the run
	// is over it is started again on the same address and the fakes stay
	// up; Sessions is called with the result, whose SignIns link each
	// person in, and everything stops when it returns (ctx's end, not
	// Timeout's, is the page's).
	Sessions func(ctx context.Context, res *Result) error
	// Forge is the forge the demo plays: ForgeGitHub ("" too) or
	// ForgeGitea (gitea.go: the fake Gitea, bot serve serving it alone;
	// without Sessions, whose sign-in is GitHub's).
	Forge string

	script []byte // the model's side; nil: script.yaml (tests change it)
}

// The forges a run can play (Options.Forge).
const (
	ForgeGitHub = "github"
	ForgeGitea  = "gitea"
)

// Result is what a person would see on the forge at the end of the run
// (on Gitea too in these types: the page is the same).
type Result struct {
	Forge    string // the forge's name as a person writes it: GitHub or Gitea
	Repo     string // owner/name
	BotLogin string
	Issue    ghtest.Issue
	Comments []ghtest.Comment // the issue's conversation, oldest first
	PR       ghtest.PullRequest
	// PRComments are the pull request's conversation (the CI comment).
	PRComments []ghtest.Comment
	Diff       string // git diff base...head, from the git server
	Exchanges  int    // the scripted model answers the run used
	// Session is what bot serve recorded of the run (its session), read
	// from its database once it stopped.
	Session *session.Record
	// SignIns open the run's /sessions page as a person who can read the
	// repository and one who cannot (with Options.Sessions only).
	SignIns []SignIn
	// SessionsURL is the page's address (with Options.Sessions only).
	SessionsURL string

	issued  []string // the installation tokens the fake handed out (tests look for them)
	browsed bool     // the sessions page was open: the fakes' later complaints are a browser's, logged (sessions.go)
}

// Run plays the whole flow and returns what GitHub shows at the end. The
// fakes' own complaints (a request GitHub would refuse, a model request the
// script does not expect, an answer left unused) fail it; once the sessions
// page is open (Options.Sessions) they are a browser's and only logged.
func Run(ctx context.Context, opts Options) (*Result, error) {
	switch {
	case opts.Forge != "" && opts.Forge != ForgeGitHub && opts.Forge != ForgeGitea:
		return nil, fmt.Errorf("forge %q: the demo plays %s or %s", opts.Forge, ForgeGitHub, ForgeGitea)
	case opts.Forge == ForgeGitea && opts.Sessions != nil:
		return nil, errors.New("the sessions page's sign-in is GitHub's: it is shown with the GitHub demo only")
	}
	s, err := tb.NewSession(opts.Dir)
	if err != nil {
		return nil, err
	}
	var res *Result
	err = s.Run(func() (err error) {
		res, err = run(ctx, s, opts)
		return err
	})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if ferr := s.Err(); err == nil && ferr != nil && !res.browsed {
		err = fmt.Errorf("the demo's fakes saw something unexpected: %w", ferr)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// player is one forge's side of a run, its fakes started: play does what
// the person does there and returns what the forge shows at the end.
type player interface {
	play(ctx context.Context) (*Result, error)
}

// demo is one run's fakes and server address (GitHub's side).
type demo struct {
	gh    *ghtest.Server
	git   *gittest.Server
	model *llmtest.Server
	addr  string
	issue int
	step  func(string)
	now   string // the progress comment's "Now:" line last reported
	s     tb.TB  // the session the fakes belong to
}

func run(outer context.Context, s *tb.Session, opts Options) (*Result, error) {
	ctx, cancel := context.WithTimeout(outer, cmp.Or(opts.Timeout, 5*time.Minute))
	defer cancel()
	step := func(what string) { opts.Progress.Emit(work.Event{Kind: work.EventStage, Detail: what}) }
	var hushed atomic.Bool
	log := slog.New(slog.DiscardHandler)
	if opts.Log != nil {
		log = slog.New(hushHandler{opts.Log.Handler(), &hushed})
	}
	script := opts.script
	if script == nil {
		script = scriptYAML
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close() // Serve's end closes it too
	var (
		p   player
		d   *demo
		cfg *config.Server
	)
	if opts.Forge == ForgeGitea {
		p, cfg, err = setUpGitea(s, step, script, cacheDir(opts.CacheDir), l.Addr().String())
	} else {
		d, cfg, err = setUp(s, step, script, cacheDir(opts.CacheDir), l.Addr().String(), opts.Sessions != nil)
		p = d
	}
	if err != nil {
		return nil, err
	}
	srv, err := server.New(ctx, cfg, log, tuning)
	if err != nil {
		return nil, fmt.Errorf("bot serve's start: %w", err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, l) }()
	res, err := p.play(ctx)
	if err == nil {
		hushed.Store(true) // the stop's noise, not a failure's context
	}
	stop()
	if serr := <-served; err == nil && serr != nil {
		err = fmt.Errorf("bot serve: %w", serr)
	}
	if err == nil {
		if res.Session, err = loadSession(ctx, cfg.DatabaseURL); err != nil {
			err = fmt.Errorf("the run's session: %w", err)
		}
	}
	if err == nil && opts.Sessions != nil {
		if ferr := s.Err(); ferr != nil {
			return nil, fmt.Errorf("the demo's fakes saw something unexpected: %w", ferr)
		}
		err = d.openSessions(outer, cfg, opts, res)
		res.browsed = true
		if ferr := s.Err(); ferr != nil && opts.Log != nil {
			opts.Log.Warn("while the sessions page was open, the fakes were asked for what they do not serve (GitHub's web pages are not faked)", "err", ferr)
		}
	}
	return res, err
}

// tuning is the server's: no spacing of GitHub writes, quick polls.
var tuning = server.Tuning{GitHubWriteInterval: -1, PollInterval: 50 * time.Millisecond}

// setUp starts the fakes with the sample repository and its issue and
// writes bot serve's settings for them, to listen on addr; with sessions,
// the sessions page's too (sessionSettings).
func setUp(s *tb.Session, step func(string), scriptText []byte, cache, addr string, sessions bool) (*demo, *config.Server, error) {
	d := &demo{step: step, s: s, addr: addr}
	d.gh = ghtest.New(s, ghtest.Options{})
	d.git = gittest.NewServer(s, gittest.WithTokenCheck(func(tok string) bool { return d.gh.ValidToken(owner, name, tok) }))
	url := d.git.Seed(s, owner+"/"+name, sampleFiles)
	d.gh.AddRepo(ghtest.Repo{Owner: owner, Name: name, CloneURL: url})
	d.gh.SetFile(owner, name, "main", repoConfigPath, []byte(sampleFiles[repoConfigPath]))
	d.gh.SetRefResolver(func(_, _, ref string) string { return d.git.Head(s, owner+"/"+name, ref) })
	d.gh.SetPermission(owner, name, person, "write")
	d.issue = d.gh.AddIssue(owner, name, ghtest.Issue{Title: issueTitle, Body: issueBody, User: person})
	script, err := llmtest.ParseScript(scriptText)
	if err != nil {
		return nil, nil, err
	}
	d.model = llmtest.NewServer(s, script, llmtest.WithModels(modelName))
	step(fmt.Sprintf("fake GitHub, git server and scripted model on loopback; %s/%s#%d filed by %s", owner, name, d.issue, person))
	key := filepath.Join(s.Dir(), "app.pem")
	if err := os.WriteFile(key, d.gh.PrivateKey(), 0o600); err != nil {
		return nil, nil, err
	}
	env := append(serveEnv(s, cache, d.model.URL()),
		"ISSUESMITH_APP_ID="+strconv.FormatInt(d.gh.AppID(), 10), "ISSUESMITH_PRIVATE_KEY_FILE="+key,
		"ISSUESMITH_WEBHOOK_SECRET="+webhookSecret, "ISSUESMITH_GITHUB_URL="+d.gh.URL())
	if sessions {
		env = append(env, d.sessionSettings()...)
	}
	cfg, err := config.ParseServer(env)
	return d, cfg, err
}

// serveEnv is bot serve's settings on either forge: the sandbox's caches
// (the run's own folder when cache is ""), the scripted model at
// modelURL, the state in the run's folder, no summary refresh and no
// redelivery (GitHub's delivery log, Gitea's poll): the demo's deliveries
// all arrive.
func serveEnv(s *tb.Session, cache, modelURL string) []string {
	if cache == "" {
		cache = filepath.Join(s.TempDir(), "sandbox-cache")
	}
	return []string{
		"ISSUESMITH_CACHE_DIR=" + cache, "ISSUESMITH_MIN_FREE_SPACE=0",
		"ISSUESMITH_MODEL_NAME=" + modelName, "ISSUESMITH_MODEL_BASE_URL=" + modelURL,
		"ISSUESMITH_MODEL_MAX_RETRIES=0", "ISSUESMITH_STATE_DIR=" + s.TempDir(),
		"ISSUESMITH_SUMMARY_REFRESH=off", "ISSUESMITH_REDELIVER=off", "ISSUESMITH_SHUTDOWN_TIMEOUT=5s",
	}
}

// cacheDir is where a run keeps the sandbox's caches: dir, else the user's
// cache folder's issuesmith/try, else "" (the run's own folder).
func cacheDir(dir string) string {
	if dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(base) {
		return ""
	}
	return filepath.Join(base, "issuesmith", "try")
}

// play does what the person does on GitHub — label the issue, read the
// spec and plan, comment /implement — each reaching the server as GitHub's
// signed webhook delivery, and waits for the draft pull request.
func (d *demo) play(ctx context.Context) (*Result, error) {
	if err := d.wait(ctx, "bot serve to be ready", func() bool { return d.ready() }); err != nil {
		return nil, err
	}
	d.gh.SetWebhook("http://"+d.addr+"/webhook", []byte(webhookSecret))
	d.gh.SetLabels(owner, name, d.issue, trigger)
	if err := d.deliver("issues", d.labeled()); err != nil {
		return nil, err
	}
	d.step(person + " labelled the issue " + trigger)
	if err := d.wait(ctx, "the spec and the plan", func() bool {
		return strings.Contains(d.progress(), "issuesmith: waiting for you")
	}); err != nil {
		return nil, err
	}
	d.step("the bot posted the spec and the plan and waits for approval")
	id := d.gh.AddComment(owner, name, d.issue, person, "/implement")
	if err := d.deliver("issue_comment", d.commented(id, "/implement")); err != nil {
		return nil, err
	}
	d.step(person + " commented /implement; the coder writes the change, then go build and go vet check it in the sandbox")
	if err := d.wait(ctx, "the pull request", func() bool {
		return strings.Contains(d.progress(), "issuesmith: done") && len(d.gh.PullRequests(owner, name)) == 1
	}); err != nil {
		return nil, err
	}
	pr := d.gh.PullRequests(owner, name)[0]
	d.step(fmt.Sprintf("the bot pushed %s and opened draft pull request #%d", pr.Head, pr.Number))
	pr, err := d.ci(ctx, pr)
	if err != nil {
		return nil, err
	}
	return d.result(ctx, pr)
}

// deliver sends one delivery as GitHub does and wants it accepted.
func (d *demo) deliver(event string, payload []byte) error {
	guid := fmt.Sprintf("bot-try-%s-%d", event, time.Now().UnixNano())
	if st := d.gh.Deliver(guid, event, payload, 10*time.Second); st != http.StatusAccepted {
		return fmt.Errorf("the %s delivery was answered %d, not 202 Accepted", event, st)
	}
	return nil
}

func (d *demo) ready() bool {
	resp, err := http.Get("http://" + d.addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// progress is the bot's progress comment ("" before it exists).
func (d *demo) progress() string {
	for _, c := range d.gh.Comments(owner, name, d.issue) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && m.Kind == "progress" {
			return c.Body
		}
	}
	return ""
}

// wait polls cond until it holds; on timeout it says what it waited for
// and what the progress comment said last.
func (d *demo) wait(ctx context.Context, what string, cond func() bool) error {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		if now := nowLine(d.progress()); now != "" && now != d.now {
			d.now = now
			d.step("  bot: " + now)
		}
		if strings.Contains(d.progress(), "issuesmith: stopped") {
			return fmt.Errorf("the run stopped while waiting for %s:\n%s", what, d.progress())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; the progress comment says:\n%s", what, ctx.Err(), d.progress())
		case <-t.C:
		}
	}
	return nil
}

var errNoDiff = errors.New("the pull request's branch has no diff against its base")

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// nowLine is the progress comment's "**Now:**" line, as plain text.
func nowLine(progress string) string {
	for line := range strings.Lines(progress) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "**Now:**"); ok {
			rest = mdLink.ReplaceAllString(strings.TrimSpace(rest), "$1")
			return strings.NewReplacer("**", "", "`", "").Replace(rest)
		}
	}
	return ""
}
