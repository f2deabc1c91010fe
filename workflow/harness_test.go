package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/issuesmith/issuesmith/workflow/ghport"
)

const owner, name = "acme", "app"

// leaseTTL is the harness's issue lease lifetime: short, so heartbeats
// renew it several times during a blocked stage.
const leaseTTL = time.Second

// harness is a workflow on real parts: a SQLite store in a temp dir, the
// fake GitHub through the real ghapp client, and real git repositories.
type harness struct {
	// bell rings (ring) each time a job settles; until waits on it.
	bell     chan struct{}
	bellOnce sync.Once
	seenMu   sync.Mutex
	seen     map[string]int // "stage outcome" → how often the engine observed it
	t        *testing.T
	gh       *ghtest.Server
	app      *ghapp.App
	st       *store.Store
	bare     string
	issue    int
	agents   *agents
	eng      *workflow.Engine
	// installation, when set, maps an installation id the workflow asks
	// for to the fake's (an App uninstalled and installed again has a
	// new id; the old one fails).
	installation func(id int64) (int64, error)
	// forgeOf, when set, is the engine's Deps.ForgeOf.
	forgeOf func(id int64) string
	// jobTimeout, when set, is the engine's JobTimeout (set it, then
	// stop and start the engine).
	jobTimeout time.Duration
	// refreshSchedule, when set, is the engine's RefreshSchedule (set
	// it, then stop and start the engine).
	refreshSchedule river.PeriodicSchedule
	// preflight, when set, is the engine's Preflight.
	preflight func(context.Context) error
	// sessions, when set, are the engine's Sessions (set it, then stop
	// and start the engine, or use newHarnessWith).
	sessions *workflow.Sessions
	// limits, when set, are the engine's Limits (the loop guard).
	limits *config.Limits
}

func newHarness(t *testing.T, ag *agents) *harness {
	t.Helper()
	return newHarnessOn(t, ag, storetest.SQLite(t))
}

// newHarnessOn is newHarness on the given store.
func newHarnessOn(t *testing.T, ag *agents, st *store.Store) *harness {
	t.Helper()
	gh := ghtest.New(t, ghtest.Options{})
	bare := seedRepo(t, map[string]string{"greet.go": "package greet\n\nfunc Hello() string { return \"hello\" }\n"})
	gh.AddRepo(ghtest.Repo{Owner: owner, Name: name, CloneURL: bare})
	gh.SetPermission(owner, name, "alice", "write")
	n := gh.AddIssue(owner, name, ghtest.Issue{Title: "Greet people by name", Body: "Hello() should take a name.", User: "alice", Labels: []string{"issuesmith"}})
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: gh.AppID(), PrivateKey: gh.PrivateKey(), BaseURL: gh.URL(),
		BotLogin: gh.BotLogin(), WriteInterval: -1, Backoff: time.Millisecond,
		MaxWait: 100 * time.Millisecond}) // a longer rate limit reaches the workflow
	require.NoError(t, err)
	h := &harness{t: t, gh: gh, app: app, st: st, bare: bare, issue: n, agents: ag}
	h.start()
	return h
}

// start builds and starts an engine on the harness's store (again, after
// stop, to model a restarted process).
func (h *harness) start() {
	h.t.Helper()
	eng := h.build()
	require.NoError(h.t, eng.Start(h.t.Context()))
	h.eng = eng
	h.t.Cleanup(func() { h.stop(10 * time.Second) })
}

// build makes an engine on the harness's store without starting it.
func (h *harness) build() *workflow.Engine {
	h.t.Helper()
	eng, err := workflow.New(workflow.Deps{
		Store: h.st,
		GitHub: workflow.InstallationsFunc(func(ctx context.Context, id int64) (workflow.GitHub, error) {
			if h.installation != nil {
				var err error
				if id, err = h.installation(id); err != nil {
					return nil, err
				}
			}
			return ghport.Installations(h.app).Client(ctx, id)
		}),
		Git:      cliGit{bare: h.bare},
		Explorer: h.agents, Planner: h.agents, Coder: h.agents, Summarizer: h.agents,
		ForgeOf: h.forgeOf,
	}, workflow.Options{
		BotLogin: h.gh.BotLogin(), PollInterval: 20 * time.Millisecond, LeaseWait: leaseWaitTest, WatchInterval: 20 * time.Millisecond,
		LeaseTTL: leaseTTL, JobTimeout: h.jobTimeout, RefreshSchedule: h.refreshSchedule, CIPoll: 50 * time.Millisecond,
		Logger: testLogger(), Preflight: h.preflight, Sessions: h.sessions, Limits: h.limits, Observe: h.ring,
		Cost: func(_ llm.Role, u llm.Usage) float64 { return float64(u.Total()) / 1e6 },
	})
	require.NoError(h.t, err)
	return eng
}

// stop stops the engine, cancelling running jobs after grace.
func (h *harness) stop(grace time.Duration) {
	if h.eng == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	_ = h.eng.Stop(ctx) // a cancelled job makes Stop report the deadline
	h.eng = nil
}

func (h *harness) event(kind workflow.EventKind, mod ...func(*workflow.Event)) error {
	ev := workflow.Event{Kind: kind, InstallationID: h.gh.Installation(), Owner: owner, Repo: name,
		Number: h.issue, Sender: "alice", Label: "issuesmith"}
	for _, m := range mod {
		m(&ev)
	}
	return h.eng.Handle(h.t.Context(), ev)
}

// waitRun waits until the issue's latest run satisfies ok and what its
// last move queued to be said on GitHub (its report) was said. It looks
// again each time a job settles (the engine's Observe rings the harness's
// bell), not on a clock.
func (h *harness) waitRun(what string, ok func(*store.Run) bool) *store.Run {
	h.t.Helper()
	var last *store.Run
	found := h.until(func() bool {
		r, err := h.st.LatestRun(h.t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
		if err != nil {
			return false
		}
		last = r
		return ok(r) && !h.reportPending(r.ID)
	})
	if !found {
		h.t.Fatalf("timed out waiting for %s; last run: %+v", what, last)
	}
	return last
}

// waitState waits until the issue's latest run satisfies ok, whether or
// not GitHub has been told yet (tests of a GitHub that does not answer).
func (h *harness) waitState(what string, ok func(*store.Run) bool) *store.Run {
	h.t.Helper()
	var last *store.Run
	if !h.until(func() bool {
		r, err := h.st.LatestRun(h.t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
		last = r
		return err == nil && ok(r)
	}) {
		h.t.Fatalf("timed out waiting for %s; last run: %+v", what, last)
	}
	return last
}

// ring is the engine's Observe: a job settled, so what tests wait for may
// have happened.
func (h *harness) ring(stage, outcome string) {
	h.seenMu.Lock()
	if h.seen == nil {
		h.seen = map[string]int{}
	}
	h.seen[stage+" "+outcome]++
	h.seenMu.Unlock()
	h.bellOnce.Do(func() { h.bell = make(chan struct{}, 1) })
	select {
	case h.bell <- struct{}{}:
	default: // a ring is pending already
	}
}

// waitObserved waits until the engine observed a job of stage end with
// outcome at least n times in all.
func (h *harness) waitObserved(stage, outcome string, n int) {
	h.t.Helper()
	if !h.until(func() bool {
		h.seenMu.Lock()
		defer h.seenMu.Unlock()
		return h.seen[stage+" "+outcome] >= n
	}) {
		h.t.Fatalf("the engine never observed %d × %s %s", n, stage, outcome)
	}
}

// until checks cond now and after every ring, for at most 15 s. The
// bell is the signal; the slow tick only guards a change no job made.
func (h *harness) until(cond func() bool) bool {
	h.bellOnce.Do(func() { h.bell = make(chan struct{}, 1) })
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-h.bell:
		case <-tick.C:
		case <-deadline:
			return false
		case <-h.t.Context().Done():
			return false
		}
	}
}

// reportPending reports whether a report job of run id (the job that says
// a wait or an end on GitHub) is queued or running and has not been tried
// yet (one GitHub refused waits for its retry: tests of that wait for the
// comment itself).
func (h *harness) reportPending(id int64) bool {
	jobs, err := h.eng.Queue().Jobs(h.t.Context(), nil)
	if err != nil {
		return true
	}
	for _, j := range jobs {
		if j.Kind != "issuesmith_stage" || j.State == "completed" || j.State == "discarded" || j.State == "cancelled" ||
			j.State == "retryable" {
			continue
		}
		var a workflow.StageArgs
		if json.Unmarshal(j.EncodedArgs, &a) == nil && a.RunID == id && a.Stage == workflow.StageReport {
			return true
		}
	}
	return false
}

// botComments returns the bot's comments on the issue by marker kind.
func (h *harness) botComments() map[string][]ghtest.Comment {
	out := map[string][]ghtest.Comment{}
	for _, c := range h.gh.Comments(owner, name, h.issue) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == h.gh.BotLogin() {
			out[m.Kind] = append(out[m.Kind], c)
		}
	}
	return out
}

// agents are deterministic explorer, planner and coder: the workflow is
// under test here, the agents have their own tests. The coder writes each
// plan step it is given into the item's file, so the pushed diff shows
// exactly which plan reached it.
type agents struct {
	mu           sync.Mutex
	explores     int
	refreshed    []string     // files seen by Refresh
	refreshCfg   *config.Repo // the settings the last Refresh got
	refreshes    int          // Refresh calls
	onRefresh    func()       // runs as Refresh starts, if set (blocks a refresh)
	exploreErr   error
	onExplore    func()        // runs as Explore starts, if set (GitHub changes mid-run)
	onPlan       func()        // runs as Plan starts, if set
	questions    []string      // while set, Explore's spec asks these and names no files
	implementHit chan struct{} // closed when Implement starts, if set
	block        bool          // Implement waits for ctx to end
	implementErr error         // Implement writes the first file, then fails
	implements   int
	plans        []*work.Plan
	reviews      []workflow.Review
	// afterProgress, when set, runs after each progress report of
	// Implement (tests read the progress comment there).
	afterProgress func()
	// diags are the language-server errors Implement reports left.
	diags []string
}

// exploreCost is what the explorer reports its calls cost (as the llm
// client prices them); the planner and coder report none, so the engine's
// Options.Cost prices their tokens.
const exploreCost = 0.25

func (a *agents) Explore(_ context.Context, ws *repo.Workspace, is workflow.IssueText, _ *config.Repo) (*work.Spec, workflow.Spend, error) {
	a.mu.Lock()
	a.explores++
	exploreErr, onExplore, questions := a.exploreErr, a.onExplore, a.questions
	a.mu.Unlock()
	if onExplore != nil {
		onExplore()
	}
	if exploreErr != nil {
		return nil, workflow.Spend{Usage: llm.Usage{PromptTokens: 10}}, exploreErr
	}
	if _, err := ws.Root().Stat("greet.go"); err != nil {
		return nil, workflow.Spend{}, fmt.Errorf("explorer saw no checkout: %w", err)
	}
	if len(questions) > 0 {
		return &work.Spec{Topic: "Greet people by name", Current: []string{"unclear (" + is.Title + ")"},
			Questions: questions}, workflow.Spend{Usage: llm.Usage{PromptTokens: 100}}, nil
	}
	return &work.Spec{
		Topic:   "Greet people by name",
		Current: []string{"Hello() takes no name (" + is.Title + ")"},
		Desired: []string{"Hello(name) greets the name"},
		Files: []work.FileChange{
			{Path: "greet.go", Action: work.ActionModify, Reason: "take a name"},
			{Path: "greet_test.go", Action: work.ActionAdd, Reason: "test it"},
		},
	}, workflow.Spend{Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 100}, Cost: exploreCost}, nil
}

func (a *agents) Plan(_ context.Context, ws *repo.Workspace, spec *work.Spec, _ *config.Repo) (*work.Plan, workflow.Spend, error) {
	if a.onPlan != nil {
		a.onPlan()
	}
	if _, err := ws.Root().Stat("greet.go"); err != nil {
		return nil, workflow.Spend{}, fmt.Errorf("planner saw no checkout: %w", err)
	}
	p := &work.Plan{}
	for _, f := range spec.Files {
		p.Items = append(p.Items, work.Item{Path: f.Path, Action: f.Action, Reason: f.Reason, Steps: []work.Step{
			{Text: "step one for " + f.Path}, {Text: "step two for " + f.Path}, {Text: "step three for " + f.Path},
		}})
	}
	return p, workflow.Spend{Usage: llm.Usage{PromptTokens: 500, CompletionTokens: 50}}, nil
}

// Implement writes the items in plan order, telling progress as it starts
// one that the one before is done and this one working (twice: a repeat
// must not edit the comment), and calls afterProgress after each report.
func (a *agents) Implement(ctx context.Context, ws *repo.Workspace, _ *work.Spec, plan *work.Plan, cfg *config.Repo, progress work.Progress) (*workflow.CodeResult, error) {
	a.mu.Lock()
	a.implements++
	a.plans = append(a.plans, plan)
	hit, block, implErr, after := a.implementHit, a.block, a.implementErr, a.afterProgress
	a.mu.Unlock()
	report := func(current int) {
		evs := []work.Event{{Kind: work.EventItem, Index: current, Path: plan.Items[current].Path, State: workflow.ItemWorking}}
		if current > 0 {
			evs = append([]work.Event{{Kind: work.EventItem, Index: current - 1, Path: plan.Items[current-1].Path, State: "done"}}, evs...)
		}
		for range 2 {
			for _, ev := range evs {
				progress.Emit(ev)
			}
			if after != nil {
				after()
			}
		}
	}
	if hit != nil {
		close(hit)
	}
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	res := &workflow.CodeResult{OK: true, Summary: "Implemented the plan.", Usage: llm.Usage{PromptTokens: 2000, CompletionTokens: 300}}
	for i, it := range plan.Items {
		report(i)
		if cfg.Blocked(it.Path) {
			res.OK = false
			res.Items = append(res.Items, workflow.ItemStatus{Path: it.Path, Status: "blocked", Reason: "blocked_paths"})
			continue
		}
		var b strings.Builder
		for _, s := range it.Steps {
			b.WriteString("// " + s.Text + "\n")
		}
		if err := ws.Root().WriteFile(filepath.FromSlash(it.Path), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		if implErr != nil {
			return nil, implErr // the model failed half-way through the plan
		}
		res.Changed = append(res.Changed, it.Path)
		res.Items = append(res.Items, workflow.ItemStatus{Path: it.Path, Status: "done"})
	}
	res.Checks = []workflow.Check{{Name: "go build ./...", OK: true}}
	res.Diagnostics = a.diags
	return res, nil
}

// Revise appends the comment to the file it is on, or — for a comment on
// the whole PR — to each of the PR's changed files.
func (a *agents) Revise(_ context.Context, ws *repo.Workspace, req workflow.Review, _ *config.Repo) (*workflow.CodeResult, error) {
	last := req.Thread[len(req.Thread)-1]
	a.mu.Lock()
	a.reviews = append(a.reviews, req)
	a.mu.Unlock()
	paths, note := []string{req.Path}, fmt.Sprintf("// review line %d: %s\n", req.Line, last.Body)
	if req.Path == "" {
		paths, note = req.Files, fmt.Sprintf("// review of the PR by %s: %s\n", last.Author, last.Body)
	}
	for _, p := range paths {
		f, err := ws.Root().OpenFile(filepath.FromSlash(p), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString(note)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return &workflow.CodeResult{OK: true, Changed: paths, Summary: "Applied the review.",
		Usage: llm.Usage{PromptTokens: 300, CompletionTokens: 30}}, nil
}

func (a *agents) Refresh(_ context.Context, ws *repo.Workspace, cfg *config.Repo) (workflow.Spend, error) {
	a.mu.Lock()
	a.refreshes++
	onRefresh := a.onRefresh
	a.mu.Unlock()
	if onRefresh != nil {
		onRefresh()
	}
	entries, err := fs.ReadDir(ws.Root().FS(), ".")
	if err != nil {
		return workflow.Spend{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshCfg = cfg
	for _, e := range entries {
		a.refreshed = append(a.refreshed, e.Name())
	}
	return workflow.Spend{Usage: llm.Usage{PromptTokens: 50}}, nil
}

func (a *agents) implementCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.implements
}

// branchFile reads path at the tip of branch in the bare repository.
func (h *harness) branchFile(branch, path string) string {
	out, err := runGit(context.Background(), h.bare, "show", branch+":"+path)
	require.NoError(h.t, err, out)
	return out
}

func (h *harness) branchCommits(branch string) int {
	out := git(h.t, h.bare, "rev-list", "--count", branch)
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		h.t.Fatalf("count of %s's commits: %q: %v", branch, out, err)
	}
	return n
}

// waitProgress waits until the progress comment contains want.
func (h *harness) waitProgress(want string) {
	h.t.Helper()
	if !h.until(func() bool {
		c := h.botComments()["progress"]
		return len(c) > 0 && strings.Contains(c[len(c)-1].Body, want)
	}) {
		h.t.Fatalf("progress comment never said %q", want)
	}
}

// testLogger discards logs unless ISSUESMITH_TEST_LOGS=1.
func testLogger() *slog.Logger {
	if os.Getenv("ISSUESMITH_TEST_LOGS") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// branchMessage is the message of the tip commit of branch.
func (h *harness) branchMessage(branch string) string {
	return git(h.t, h.bare, "log", "-1", "--format=%B", branch)
}

// waitJobsDone waits until no job of the given kinds (stage and label
// jobs when none are given) is queued or running.
func (h *harness) waitJobsDone(kinds ...string) {
	h.t.Helper()
	if len(kinds) == 0 {
		kinds = []string{"issuesmith_stage", "issuesmith_label"}
	}
	if !h.until(func() bool {
		jobs, err := h.eng.Queue().Jobs(h.t.Context(), nil)
		if err != nil {
			return false
		}
		for _, j := range jobs {
			if slices.Contains(kinds, j.Kind) && j.State != "completed" && j.State != "discarded" && j.State != "cancelled" {
				return false
			}
		}
		return true
	}) {
		h.t.Fatalf("jobs of %v never finished", kinds)
	}
}

// leaseWaitTest is the harness's wait of a job for a busy issue. Not 0: a
// waiting job would run again at every 20 ms poll, and two review rounds
// queued behind a third then spun at about 100 job runs a second, each a
// few writes on the harness's one SQLite connection, starving the round
// they waited for; under a CPU hog with the package's parallel tests that
// stretched three rounds past 15 s.
const leaseWaitTest = 100 * time.Millisecond

// eventually fails the test unless cond holds within 15 s, looking again
// each time a job settles (until).
func (h *harness) eventually(cond func() bool, msgAndArgs ...any) {
	h.t.Helper()
	if !h.until(cond) {
		msg := "condition never held"
		if len(msgAndArgs) > 0 {
			msg = fmt.Sprintf(fmt.Sprint(msgAndArgs[0]), msgAndArgs[1:]...)
		}
		h.t.Fatal(msg)
	}
}
