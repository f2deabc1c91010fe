package coder

import (
	"fmt"

	"github.com/issuesmith/issuesmith/llm"
)

// The model's failures. A session that failed because of the model (its
// replies, or its server's refusal of the model's request) keeps an *llm.ModelFailure beside its reason;
// when no plan item was done and the model failed one, Implement returns
// that failure with its result, so `bot solve` and the App name the model
// and the setting to change instead of the plan or the issue. A session
// that failed on edits the engine refused, or on a budget, is no model
// failure: the model did its part of the work.

// itemFailure is the model's failure on one plan item.
type itemFailure struct {
	item string
	f    *llm.ModelFailure
}

// blame records f as the reason the session failed, the first one kept.
func (s *session) blame(f *llm.ModelFailure) {
	if f != nil && s.failure == nil {
		s.failure = f
	}
}

// formatFailure is the ModelFailure of maxFormatErrors replies in a row
// without a usable edit block; cut says the last was cut at the output
// limit.
func formatFailure(n int, why string, cut bool) *llm.ModelFailure {
	if cut {
		return llm.StopFailure(llm.RoleCoder, llm.StopOutputLimit, "", "", nil)
	}
	return &llm.ModelFailure{Role: llm.RoleCoder, Reason: llm.StopNoAction,
		Cause: fmt.Sprintf("wrote no usable edit in %d replies in a row (last: %s)", n, why),
		Fix:   "use a model that follows the coder's edit format for the coder role (ISSUESMITH_MODEL_ROLES coder:NAME)"}
}

// modelFailure is the error Implement returns with its result: the model's
// first failure, naming its plan item, when no item was done (nothing of
// the plan was written) and the model failed at least one; else nil.
func (r *run) modelFailure() error {
	if len(r.failures) == 0 {
		return nil
	}
	for _, it := range r.res.Items {
		if it.Status == ItemDone {
			return nil
		}
	}
	first := *r.failures[0].f
	first.Cause += fmt.Sprintf(" (plan item %s; no item of the plan was done)", r.failures[0].item)
	return &first
}
