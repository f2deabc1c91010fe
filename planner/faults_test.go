package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// A reply cut at the output limit is asked again shorter, never "whole".
func TestPlanCutReplyAsksForAShorterPlan(t *testing.T) {
	t.Parallel()
	cut := llmtest.Reply(goodReply[:200])
	cut.Reply.Finish = llm.FinishLength
	srv, p := scripted(t, llmtest.Script{cut, llmtest.Reply(goodReply).When(llmtest.Expect{Last: "cut off at the output limit"})})
	plan, err := p.Plan(t.Context(), sampleSpec())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Items) != 2 {
		t.Errorf("plan %+v", plan)
	}
	last := srv.Requests()[1].Messages
	if note := last[len(last)-1].Content; strings.Contains(note, "whole plan") || !strings.Contains(note, "shorter") {
		t.Errorf("correction = %q", note)
	}
}

// Reasoning around the JSON (a <think> section, or a lone closing tag)
// is not part of the plan.
func TestPlanReasoningAroundTheJSON(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{
		"<think>The plan needs {\"items\": []} maybe.</think>\n" + goodReply,
		"I should order by dependencies {not json}.\n</think>\n" + goodReply,
	} {
		_, p := scripted(t, llmtest.Script{llmtest.Reply(reply)})
		if plan, err := p.Plan(t.Context(), sampleSpec()); err != nil || len(plan.Items) != 2 {
			t.Errorf("plan %+v, err %v", plan, err)
		}
	}
}

// An empty reply is never replayed as an empty assistant message: the
// correction joins the prompt.
func TestPlanEmptyReplyIsNotReplayed(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, llmtest.Script{llmtest.Reply(""), llmtest.Reply(goodReply).When(llmtest.Expect{Last: "previous reply was empty"})})
	if _, err := p.Plan(t.Context(), sampleSpec()); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages
	if len(msgs) != 2 || msgs[1].Role != llm.User {
		t.Errorf("messages = %+v", msgs)
	}
}

// A path the model adds beyond the spec that does not exist (and is not
// added) goes back to the model as a guess.
func TestPlanGuessedPathIsFlagged(t *testing.T) {
	t.Parallel()
	guessed := strings.Replace(goodReply, `"depends_on": []}]}`, `"depends_on": []},
 {"path": "src/data/index.ts", "action": "modify", "reason": "export it", "steps": ["Export deepseek"], "depends_on": []}]}`, 1)
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(guessed),
		llmtest.Reply(goodReply).When(llmtest.Expect{Last: "do not exist in the repository: src/data/index.ts"}),
	})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(c, Options{Exists: func(path string) bool { return path == "src/data/platform.ts" }})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(t.Context(), sampleSpec())
	if err != nil || len(plan.Items) != 2 {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
}

// The model's failures come out as *llm.ModelFailure naming what the
// planner's model did and the setting to change, never as a problem of
// the spec or the issue.
func TestPlanModelFailures(t *testing.T) {
	t.Parallel()
	cut := llmtest.Reply(goodReply[:200]).Finish(llm.FinishLength)
	for _, tc := range []struct {
		name   string
		script llmtest.Script
		kind   error
		want   []string
	}{
		{name: "every reply cut at the output limit", script: llmtest.Script{cut.Times(3)},
			kind: ErrInvalidReply, want: []string{"the planner's model had every reply cut", "MAX_COMPLETION_TOKENS"}},
		{name: "prose every reply", script: llmtest.Script{llmtest.Reply("The plan is to edit platform.ts.").Times(3)},
			kind: ErrInvalidReply, want: []string{"gave no valid plan in 3 replies", "ISSUESMITH_MODEL_ROLES planner:NAME"}},
		{name: "the server's chat template refuses", script: llmtest.Script{{Forever: true, Faults: []llmtest.Fault{{Status: 500,
			Message: "Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/..."}}}},
			kind: llm.ErrTemplate, want: []string{"chat template", "text protocol"}},
		{name: "the prompt is over the context window", script: llmtest.Script{{Forever: true, Faults: []llmtest.Fault{{Status: 400,
			Code: "context_length_exceeded", Message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens."}}}},
			kind: llm.ErrContextLength, want: []string{"context window", "--ctx-size"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, tc.script)
			c, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "scripted", Retry: llm.RetryConfig{MaxAttempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := p.Plan(t.Context(), sampleSpec())
			var f *llm.ModelFailure
			if plan != nil || !errors.As(err, &f) || !errors.Is(err, llm.ErrModelFailed) || !errors.Is(err, tc.kind) {
				t.Fatalf("plan %v, err %v: want a model failure (%v)", plan, err, tc.kind)
			}
			if f.Role != llm.RolePlanner {
				t.Errorf("role %q", f.Role)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
