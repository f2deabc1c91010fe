package work

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// Plan is the spec turned into work: one item per file, in the order the
// files should be changed (a file before the files that depend on it).
type Plan struct {
	Items []Item `json:"items"`
	// Usage is what the model calls that wrote the plan cost; zero for a
	// plan parsed from a comment.
	Usage llm.Usage `json:"usage,omitzero"`
}

// Item is the work on one file.
type Item struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
	// Reason is the one-line why, carried over from the spec.
	Reason string `json:"reason,omitempty"`
	Steps  []Step `json:"steps"`
}

// Step is one concrete change inside a file. Done is the task-list box: the
// coder ticks it when the step is implemented.
type Step struct {
	Text string `json:"text"`
}

// PlanState is what a plan comment says beyond the plan itself.
type PlanState struct {
	// Approved is true when the "approve and implement" box is ticked.
	Approved bool
}

// Meta identifies a rendered comment: the run that produced it and the
// version of the comment, written into the hidden marker.
type Meta struct {
	RunID   string
	Version int
}

// Validate checks the plan: at least one item; each with a clean relative
// path named once, a known action, and steps (a delete needs none).
func (p *Plan) Validate() error {
	var probs []string
	if len(p.Items) == 0 {
		probs = append(probs, "the plan has no items")
	}
	seen := map[string]bool{}
	for i, it := range p.Items {
		if err := CheckPath(it.Path); err != nil {
			probs = append(probs, fmt.Sprintf("items[%d]: %v", i, err))
		}
		if _, err := ParseAction(string(it.Action)); err != nil {
			probs = append(probs, fmt.Sprintf("items[%d] %s: %v", i, it.Path, err))
		}
		if len(it.Steps) == 0 && it.Action != ActionDelete {
			probs = append(probs, fmt.Sprintf("items[%d] %s: no steps", i, it.Path))
		}
		for j, s := range it.Steps {
			if strings.TrimSpace(s.Text) == "" {
				probs = append(probs, fmt.Sprintf("items[%d] %s: step %d is empty", i, it.Path, j+1))
			}
		}
		if seen[it.Path] {
			probs = append(probs, fmt.Sprintf("items[%d] %s: listed twice", i, it.Path))
		}
		seen[it.Path] = true
	}
	if len(probs) > 0 {
		return fmt.Errorf("invalid plan:\n- %s", strings.Join(probs, "\n- "))
	}
	return nil
}
