package work

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// FuzzPlanRoundTrip: any valid plan survives render → parse unchanged
// (modulo whitespace folding), and parsing arbitrary bodies never panics.
//
//	go test ./work -run '^$' -fuzz FuzzPlanRoundTrip -fuzztime 30s
func FuzzPlanRoundTrip(f *testing.F) {
	f.Add("src/a.go", "modify", "why", "step one", "step two", true)
	f.Add("docs/x y.md", "add", "", "- [ ] nested", "### heading", false)
	f.Add("a/b.ts", "delete", "*Why:* twice", "1. numbered", "[x] ticked", true)
	f.Fuzz(func(t *testing.T, path, action, reason, s1, s2 string, done bool) {
		fold := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		it := Item{Path: path, Action: Action(action), Reason: fold(reason)}
		for _, s := range []string{s1, s2} {
			if s = fold(s); s != "" {
				it.Steps = append(it.Steps, Step{Text: s})
			}
		}
		p := &Plan{Items: []Item{it}}
		body := RenderPlan(p, PlanState{Approved: done}, Meta{RunID: "r", Version: 1})
		got, st, err := ParsePlan(body) // must not panic, valid or not
		if p.Validate() != nil || strings.ContainsAny(path, " `\t\n") || !roundTrippable(it) {
			return
		}
		if err != nil {
			t.Fatalf("valid plan does not parse back: %v\n%s", err, body)
		}
		if d := cmp.Diff(p, got); d != "" || st.Approved != done {
			t.Fatalf("round trip (-want +got):\n%s\n%s", d, body)
		}
	})
}

// roundTrippable excludes text the Markdown form cannot carry verbatim: a
// leading task box or list marker is read as structure, and a reason that
// starts with the "Why:" label loses it.
func roundTrippable(it Item) bool {
	if ghtext.Defuse(it.Reason) != it.Reason || strings.Contains(it.Reason, "&#8203;") || strings.Contains(it.Reason, "&lt;!--") {
		return false // mentions, closing keywords and "<!--" are defused
	}
	for _, s := range it.Steps {
		if bulletRe.MatchString(s.Text) || strings.HasPrefix(s.Text, "[") || ghtext.Defuse(s.Text) != s.Text ||
			strings.Contains(s.Text, "&#8203;") || strings.Contains(s.Text, "&lt;!--") {
			return false
		}
	}
	r := strings.TrimSpace(it.Reason)
	return !strings.HasPrefix(r, "Why:") && !strings.HasPrefix(r, "*Why:*") && !headingRe.MatchString(r) &&
		!bulletRe.MatchString(r) && !strings.HasPrefix(r, "---")
}
