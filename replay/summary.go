package replay

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/replay/oracle"
)

// Summary writes the table of a run: resolve rate, count per status and per
// failing stage/reason, and wall time per stage.
func Summary(w io.Writer, results []Result) {
	var n, resolved int
	status := map[string]int{}
	reasons := map[string]int{}
	stageWall := map[string]float64{}
	stageN := map[string]int{}
	var order []string
	var wall float64
	var peak int64
	reused := 0
	for _, r := range results {
		if r.ID == "" {
			continue // not run (interrupted)
		}
		n++
		if r.Reused != "" {
			reused++
		}
		status[r.Status]++
		if r.Status == StatusResolved {
			resolved++
		} else {
			reasons[r.Status+": "+reasonKind(r.Reason)]++
		}
		for _, s := range r.Stages {
			if _, ok := stageN[s.Stage]; !ok {
				order = append(order, s.Stage)
			}
			stageWall[s.Stage] += s.Wall
			stageN[s.Stage]++
		}
		wall += r.Wall
		peak = max(peak, r.PeakRSSKB)
	}
	if n == 0 {
		fmt.Fprintln(w, "replay: no results")
		return
	}
	fmt.Fprintf(w, "resolved %d / %d (%.1f%%)\n\n", resolved, n, 100*float64(resolved)/float64(n))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "status\tinstances")
	for _, k := range sortedKeys(status) {
		fmt.Fprintf(tw, "%s\t%d\n", k, status[k])
	}
	tw.Flush()
	if len(reasons) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "failure\tinstances")
		for _, k := range sortedKeys(reasons) {
			fmt.Fprintf(tw, "%s\t%d\n", k, reasons[k])
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "stage\truns\ttotal s\tmean s")
	for _, s := range order {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\n", s, stageN[s], stageWall[s], stageWall[s]/float64(stageN[s]))
	}
	fmt.Fprintf(tw, "instance\t%d\t%.1f\t%.1f\n", n, wall, wall/float64(n))
	tw.Flush()
	if reused > 0 {
		fmt.Fprintf(w, "\njudged from an earlier test run of the same tree (--verdicts): %d\n", reused)
	}
	if peak > 0 {
		fmt.Fprintf(w, "\npeak memory of a test run: %.0f MiB\n", float64(peak)/1024)
	}
	usageSummary(w, results)
	faultSummary(w, results)
	sessionSummary(w, results)
	limitSummary(w, results)
}

// limitSummary names the instances whose solver stated a limit (what it
// left out of its work and why), each with its status.
func limitSummary(w io.Writer, results []Result) {
	var lines []string
	for _, r := range results {
		if r.ID != "" && len(r.Limits) > 0 {
			lines = append(lines, fmt.Sprintf("  %s (%s): %s", r.ID, r.Status, strings.Join(r.Limits, "; ")))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nstated limits (%d instances):\n%s\n", len(lines), strings.Join(lines, "\n"))
}

// sessionSummary gives the median and largest session a run stored
// (--sessions).
func sessionSummary(w io.Writer, results []Result) {
	var sizes []int64
	for _, r := range results {
		if r.SessionBytes > 0 {
			sizes = append(sizes, r.SessionBytes)
		}
	}
	if len(sizes) == 0 {
		return
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	fmt.Fprintf(w, "\nsession bytes per run (%d runs): median %.0f KiB, max %.0f KiB\n", len(sizes),
		float64(sizes[len(sizes)/2])/1024, float64(sizes[len(sizes)-1])/1024)
}

// usageSummary totals the model's tokens: prompt, the part a prefix cache
// served, the rest, and completion, per instance on average.
func usageSummary(w io.Writer, results []Result) {
	var u llm.Usage
	n, cost := 0, 0.0
	for _, r := range results {
		if r.Usage.PromptTokens+r.Usage.CompletionTokens > 0 {
			u, n, cost = u.Add(r.Usage), n+1, cost+r.Cost
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\ntokens over %d instances: prompt %s (cached %s, %.1f%%; uncached %s, %s per instance), completion %s\n",
		n, kilo(u.PromptTokens), kilo(u.CachedTokens), pct(u.CachedTokens, u.PromptTokens), kilo(u.PromptTokens-u.CachedTokens),
		kilo((u.PromptTokens-u.CachedTokens)/n), kilo(u.CompletionTokens))
	if cost > 0 {
		fmt.Fprintf(w, "cost: $%.2f ($%.4f per instance)\n", cost, cost/float64(n))
	}
}

// faultSummary totals what the oracle's injected faults cost (--faults):
// faults by kind, and the calls and tokens they wasted of all spent.
func faultSummary(w io.Writer, results []Result) {
	var calls, tokens, extraCalls, extraTokens, n int
	kinds := map[string]int{}
	for _, r := range results {
		if r.ID == "" || r.Faults == nil {
			continue
		}
		n++
		f := r.Faults
		calls, tokens, extraCalls, extraTokens = calls+f.Calls, tokens+f.Tokens, extraCalls+f.ExtraCalls, extraTokens+f.ExtraTokens
		for k, v := range f.Kinds {
			kinds[k] += v
		}
	}
	if n == 0 {
		return
	}
	injected := (&oracle.Stats{Kinds: kinds}).Injected()
	fmt.Fprintf(w, "\nfaults: %d injected over %d instances; they cost %d extra model calls of %d (%.1f%%) and %s tokens of %s (%.1f%%)\n",
		injected, n, extraCalls, calls, pct(extraCalls, calls), kilo(extraTokens), kilo(tokens), pct(extraTokens, tokens))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\tturns")
	for _, k := range sortedKeys(kinds) {
		fmt.Fprintf(tw, "%s\t%d\n", k, kinds[k])
	}
	tw.Flush()
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// reasonKind is a reason without its particulars (test names, paths after
// a colon), so like failures count together.
func reasonKind(r string) string {
	if i := strings.Index(r, ": "); i > 0 && i < 80 {
		r = r[:i]
	}
	return clip.Bytes(r, 80, "…")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
