package planner

import (
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
