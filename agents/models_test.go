package agents

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
)

// modelEnv is a server's model settings over the scripted endpoint: the
// house model has the default prices, big-coder its own (USD per million
// tokens: input, output, cached input).
func modelEnv(url string, extra ...string) *config.Model {
	env := append([]string{"ISSUESMITH_MODEL_BASE_URL=" + url, "ISSUESMITH_MODEL_NAME=house-model",
		"ISSUESMITH_MODEL_MAX_RETRIES=0", "ISSUESMITH_MODEL_INPUT_PRICE=1", "ISSUESMITH_MODEL_OUTPUT_PRICE=4",
		"ISSUESMITH_MODEL_PRICES=big-coder=2/8/0.5", "ISSUESMITH_MODEL_TEMPERATURE=0.1"}, extra...)
	m, err := config.ParseModel(env)
	if err != nil {
		panic(err)
	}
	return m
}

func hello() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
}

// The server's model comes from config.Model.LLM (temperature, prices per
// model), a repository's roles apply on top (model, temperature,
// max_completion_tokens) for that role only, and each call is priced by its
// own model, cached tokens included.
func TestModelsFromConfigAndRepositoryRoles(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("a").When(llmtest.Expect{Role: "coder", Model: "big-coder"}).WithUsage(1000, 100, 400),
		llmtest.Reply("b").When(llmtest.Expect{Role: "explorer", Model: "house-model"}).WithUsage(1000, 100, 0),
	})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\nroles:\n  coder:\n    model: big-coder\n    temperature: 0.7\n    max_completion_tokens: 55\n"))
	require.NoError(t, err)
	m, err := ms.ForRepo(rc)
	require.NoError(t, err)
	var costs []float64
	for _, role := range []llm.Role{llm.RoleCoder, llm.RoleExplorer} {
		sp, err := spendOf(m, func(m llm.Model) error {
			req := hello()
			req.Role = role
			_, err := m.Chat(t.Context(), req)
			return err
		})
		require.NoError(t, err)
		costs = append(costs, sp.Cost)
	}
	reqs := srv.Requests()
	assert.InDelta(t, 0.7, reqs[0].Temperature, 1e-6, "the repository's coder temperature")
	assert.Equal(t, 55, reqs[0].MaxTokens, "the repository's coder max_completion_tokens")
	assert.InDelta(t, 0.1, reqs[1].Temperature, 1e-6, "the server's temperature for other roles")
	assert.InDelta(t, (600*2+400*0.5+100*8)/1e6, costs[0], 1e-12, "big-coder's own prices, cached tokens cheaper")
	assert.InDelta(t, (1000*1+100*4)/1e6, costs[1], 1e-12, "the default prices")

	same, err := ms.ForRepo(config.DefaultRepo())
	require.NoError(t, err)
	require.Same(t, ms.def, same, "no override: the server's client")
}

// A bad model setting is reported by the variable or the repository key to
// change.
func TestModelsErrorsNameTheSetting(t *testing.T) {
	t.Parallel()
	m := modelEnv("http://127.0.0.1:1/v1")
	m.BaseURL = "not a url"
	_, err := NewModels(m)
	require.ErrorContains(t, err, "ISSUESMITH_MODEL_BASE_URL")

	ms, err := NewModels(modelEnv("http://127.0.0.1:1/v1"))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\nroles:\n  coder:\n    model: big-coder\n"))
	require.NoError(t, err)
	r := rc.Roles["coder"]
	r.Protocol = "smoke-signals" // past ParseRepo's check: llm's validation names the key
	rc.Roles["coder"] = r
	_, err = ms.ForRepo(rc)
	require.ErrorContains(t, err, ".github/issuesmith.yml roles.coder.protocol")
}

// The planner gets the repository's planner budget: with max_steps 1 a bad
// first reply is not sent back for a correction.
func TestPlannerAgentUsesTheRepositoryBudget(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("no plan here").WithUsage(10, 1, 0)})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\nroles:\n  planner:\n    max_steps: 1\n"))
	require.NoError(t, err)
	spec := &work.Spec{Topic: "t", Desired: []string{"d"},
		Files: []work.FileChange{{Path: "a.go", Action: work.ActionModify, Reason: "r"}}}
	_, sp, err := (&Planner{Models: ms}).Plan(t.Context(), workspace(t, t.TempDir()), spec, rc)
	require.ErrorIs(t, err, planner.ErrBudget)
	require.Len(t, srv.Requests(), 1)
	require.Equal(t, 10, sp.Usage.PromptTokens)
}

// bot serve's planner reads the repository guidance in the checkout it is
// given, as bot solve's does: the planner's system prompt carries it.
func TestPlannerAgentReadsTheRepositoryGuidance(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("no plan here")})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\nroles:\n  planner:\n    max_steps: 1\n"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Every handler returns wrapped errors.\n"), 0o644))
	spec := &work.Spec{Topic: "t", Desired: []string{"d"},
		Files: []work.FileChange{{Path: "a.go", Action: work.ActionModify, Reason: "r"}}}
	_, _, err = (&Planner{Models: ms}).Plan(t.Context(), workspace(t, dir), spec, rc)
	require.ErrorIs(t, err, planner.ErrBudget)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Contains(t, reqs[0].Messages[0].Content, "Every handler returns wrapped errors.")
}

// workspace opens dir as the worktree's workspace would be, closed when
// the test ends.
func workspace(t *testing.T, dir string) *repo.Workspace {
	t.Helper()
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

// The coder works in the workspace it is given and leaves it open, whether
// it succeeded or not: the worktree that opened it closes it (git.go).
func TestCoderAgentLeavesTheWorkspaceToItsWorktree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	ms, err := NewModels(modelEnv("http://127.0.0.1:1/v1"))
	require.NoError(t, err)
	a := &Coder{Models: ms, Options: coder.Options{SkipGoChecks: true}}
	ws := workspace(t, dir)
	// An empty plan asks the model nothing; a review of a missing file fails.
	_, err = a.Implement(t.Context(), ws, &work.Spec{}, &work.Plan{}, config.DefaultRepo(), nil)
	require.NoError(t, err)
	_, err = a.Revise(t.Context(), ws, workflow.Review{Path: "missing.txt", Line: 1,
		Thread: []workflow.ThreadComment{{Author: "alice", Body: "fix"}}}, config.DefaultRepo())
	require.Error(t, err)
	got, err := ws.ReadBytes("a.txt")
	require.NoError(t, err, "the workspace is still open")
	require.Equal(t, "one\n", string(got))
}

// The coder's progress reaches the workflow through coder.Options.Progress:
// each item's start and outcome as the coder's work.EventItem events,
// which folded give every item's status in plan order, as the real coder
// runs a plan (a blocked item reports its reason).
func TestCoderAgentReportsItemProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("one\n"), 0o644))
	}
	edit := func(path string) string {
		return "<file-edit filePath=\"" + path + "\">\n------- SEARCH\none\n=======\nONE\n+++++++ REPLACE\n</file-edit>\n"
	}
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(edit("a.txt")).When(llmtest.Expect{Role: "coder", Last: "# Your item: a.txt"}),
		llmtest.Reply(edit("b.txt")).When(llmtest.Expect{Role: "coder", Last: "# Your item: b.txt"}),
	})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	a := &Coder{Models: ms, Options: coder.Options{SkipGoChecks: true}}
	shout := []work.Step{{Text: "Shout one"}}
	plan := &work.Plan{Items: []work.Item{
		{Path: "a.txt", Action: work.ActionModify, Steps: shout},
		{Path: ".github/workflows/ci.yml", Action: work.ActionModify, Steps: shout},
		{Path: "b.txt", Action: work.ActionModify, Steps: shout},
	}}
	items := plan.Pending() // folded from the events as the workflow folds them
	var reports [][]workflow.ItemStatus
	res, err := a.Implement(t.Context(), workspace(t, dir), &work.Spec{Topic: "shout"}, plan, config.DefaultRepo(),
		func(ev work.Event) {
			require.Equal(t, work.EventItem, ev.Kind)
			require.Equal(t, llm.RoleCoder, ev.Agent)
			if work.Apply(items, ev) {
				reports = append(reports, slices.Clone(items))
			}
		})
	require.NoError(t, err)
	require.False(t, res.OK, "the blocked item is not done")
	blocked := res.Items[1].Reason
	require.Contains(t, blocked, "blocked pattern")
	st := func(a, ci, b string) []workflow.ItemStatus {
		out := []workflow.ItemStatus{{Path: "a.txt", Status: a}, {Path: ".github/workflows/ci.yml", Status: ci}, {Path: "b.txt", Status: b}}
		if ci == coder.ItemBlocked {
			out[1].Reason = blocked
		}
		return out
	}
	require.Equal(t, [][]workflow.ItemStatus{
		st("working", "pending", "pending"),
		st("done", "pending", "pending"),
		st("done", "blocked", "pending"),
		st("done", "blocked", "working"),
		st("done", "blocked", "done"),
	}, reports)
}

// A repository's apply_model and roles.apply reach the coder the App and
// bot solve build: a block still refused on the item's last attempt goes
// to the apply role's own model, and its rewrite is the change.
func TestCoderAgentAppliesTheRepositoryApplyModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package calc\n\nfunc Add(x, y int) int {\n\treturn x + y\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calc.go"), []byte(src), 0o644))
	block := "<file-edit filePath=\"calc.go\">\n------- SEARCH\nfunc Add(x, y int) int {\n\t// sum\n\treturn x + y\n}\n" +
		"=======\nfunc Add(x, y int) int {\n\treturn y + x\n}\n+++++++ REPLACE\n</file-edit>\n"
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(block).When(llmtest.Expect{Role: "coder", Model: "house-model"}),
		llmtest.Reply("```go\nfunc Add(x, y int) int {\n\treturn y + x\n}\n```\n").When(llmtest.Expect{Role: "apply", Model: "small-apply"}),
	})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\napply_model: true\nroles:\n  apply:\n    model: small-apply\n"))
	require.NoError(t, err)
	a := &Coder{Models: ms, Options: coder.Options{SkipGoChecks: true, Attempts: 1}}
	res, err := a.Implement(t.Context(), workspace(t, dir), &work.Spec{Topic: "swap"}, &work.Plan{Items: []work.Item{
		{Path: "calc.go", Action: work.ActionModify, Steps: []work.Step{{Text: "Swap the operands."}}}}}, rc, nil)
	require.NoError(t, err)
	require.True(t, res.OK, "%+v", res.Items)
	got, err := os.ReadFile(filepath.Join(dir, "calc.go"))
	require.NoError(t, err)
	require.Equal(t, "package calc\n\nfunc Add(x, y int) int {\n\treturn y + x\n}\n", string(got))
}

// A coder run that ends in an error (here: cancelled after its first
// item) still reports what its model calls spent, so the stage charges
// them; the adapter used to return nothing with the error.
func TestCoderAgentReportsTheSpendOfAFailedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("one\n"), 0o644))
	}
	edit := "<file-edit filePath=\"a.txt\">\n------- SEARCH\none\n=======\nONE\n+++++++ REPLACE\n</file-edit>\n"
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(edit).WithUsage(1200, 80, 0).When(llmtest.Expect{Role: "coder", Last: "# Your item: a.txt"}),
	})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	a := &Coder{Models: ms, Options: coder.Options{SkipGoChecks: true}}
	plan := &work.Plan{Items: []work.Item{
		{Path: "a.txt", Action: work.ActionModify, Steps: []work.Step{{Text: "Shout one"}}},
		{Path: "b.txt", Action: work.ActionModify, Steps: []work.Step{{Text: "Shout one"}}},
	}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res, err := a.Implement(ctx, workspace(t, dir), &work.Spec{Topic: "shout"}, plan, config.DefaultRepo(), func(ev work.Event) {
		if ev.Index == 0 && ev.State == coder.ItemDone {
			cancel()
		}
	})
	require.Error(t, err)
	require.NotNil(t, res, "the failed run's result comes with the error")
	assert.Equal(t, 1200, res.Usage.PromptTokens)
	assert.Equal(t, 80, res.Usage.CompletionTokens)
	assert.InDelta(t, (1200*1+80*4)/1e6, res.Cost, 1e-9, "priced as the house model")
}
