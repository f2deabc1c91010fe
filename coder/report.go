package coder

import (
	"fmt"
	"strings"
)

// Report renders the run for people: one line per transcript event, then
// per-item status with attempts, the last checks, token use and the diff
// stat. bot solve prints it; the workflow logs it.
func (r *Result) Report() string {
	var b strings.Builder
	b.WriteString("actions:\n")
	for _, e := range r.Transcript {
		at := ""
		if e.Attempt > 0 {
			at = fmt.Sprintf(" #%d", e.Attempt)
		}
		fmt.Fprintf(&b, "  %-24s%-4s %-9s %s\n", e.Item, at, e.Kind, firstLine(e.Detail))
	}
	b.WriteString("items:\n")
	retries := 0
	for _, it := range r.Items {
		retries += max(it.Attempts-1, 0)
		fmt.Fprintf(&b, "  %-24s %-8s attempts=%d tokens=%d", it.Path, it.Status, it.Attempts, it.Usage.Total())
		if it.Status != ItemDone && it.Reason != "" {
			fmt.Fprintf(&b, "  (%s)", firstLine(it.Reason))
		}
		b.WriteByte('\n')
	}
	for _, c := range r.LastChecks() {
		mark := "ok"
		if c.Refused {
			mark = "NOT RUN (" + strings.TrimPrefix(notRunWhy(c), "not run: ") + ")"
		} else if !c.OK {
			mark = "FAILED"
		}
		fmt.Fprintf(&b, "check: %s %s (round %d, %s)\n", c.Command, mark, c.Round, c.Duration)
	}
	for _, d := range r.Diagnostics {
		fmt.Fprintf(&b, "diagnostic left: %s\n", d)
	}
	fmt.Fprintf(&b, "retries: %d; tokens: %d prompt + %d completion; %s\n",
		retries, r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Changes.Stat())
	return b.String()
}
