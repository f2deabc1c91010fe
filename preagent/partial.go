package preagent

import (
	"fmt"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// stopText says in words for people why a run stopped early.
func stopText(r llm.StopReason, steps int) string {
	switch r {
	case llm.StopStepLimit:
		return fmt.Sprintf("the explorer reached its step limit (%d steps)", steps)
	case llm.StopTokenBudget:
		return "the explorer used up its token budget"
	case llm.StopCostBudget:
		return "the explorer used up its cost budget"
	case llm.StopWallTime:
		return "the explorer ran out of time"
	case llm.StopLoop:
		return "the explorer kept repeating the same action"
	case llm.StopFinished:
		return "the explorer stopped without submitting a spec"
	}
	return fmt.Sprintf("the explorer stopped (%s)", r)
}

// partialSpec builds the spec of a run that ended before submit_spec from
// everything explored: every observation not yet in the record is judged
// deterministically, files judged relevant become files to modify, and the
// hypothesis becomes the desired behaviour.
func (s *session) partialSpec(r llm.StopReason, msgs []llm.Message) *work.Spec {
	var files []*observation
	for i := range s.obs {
		o := &s.obs[i]
		if !o.folded && !o.IsError && o.Path != "" {
			o.folded = true
			files = append(files, o)
		}
	}
	var notes []fileNote
	for _, p := range uniquePaths(files) {
		notes = append(notes, s.fallbackNote(p, files, msgs))
	}
	s.rec.merge(notes, nil, lastThought(msgs))
	why := stopText(r, s.step)
	spec := &work.Spec{Topic: s.issue.Title, Partial: true,
		Note: why + " before it submitted a spec; the files below are those it judged relevant so far. Check them before planning."}
	if spec.Topic == "" {
		spec.Topic = "(untitled issue)"
	}
	for _, f := range s.rec.files {
		if f.Relevant {
			spec.Files = append(spec.Files, work.FileChange{Path: f.Path, Action: work.ActionModify, Reason: f.Why})
			spec.Current = append(spec.Current, fmt.Sprintf("`%s`: %s", f.Path, f.Summary))
		}
	}
	if s.rec.hypothesis != "" {
		spec.Desired = []string{s.rec.hypothesis}
	}
	if len(spec.Files) == 0 {
		spec.Questions = []string{"The explorer stopped before it found the files to change: which files or folders should it look at?"}
	}
	return spec
}
