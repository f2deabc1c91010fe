package workflow

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/issuesmith/issuesmith/work"
	"github.com/stretchr/testify/require"
)

var limitMeta = work.Meta{RunID: "7", Version: 1}

func TestFitSpecCutsFreeTextAndStaysReadable(t *testing.T) {
	huge := strings.Repeat("très long ", 10000) // 100,000 characters
	spec := &work.Spec{Topic: "Topic", Current: []string{huge}, Desired: []string{"short", huge},
		Files: []work.FileChange{{Path: "a.go", Action: work.ActionModify, Reason: huge}}}
	body, err := fitSpec(spec, limitMeta)
	require.NoError(t, err)
	require.LessOrEqual(t, utf8.RuneCountInString(body), gitHubMaxBody)
	require.Contains(t, body, "(cut: ")
	back, err := work.ParseSpec(body)
	require.NoError(t, err)
	require.Len(t, back.Files, 1)
	require.Equal(t, "a.go", back.Files[0].Path)
	require.Contains(t, back.Desired, "short")

	small := &work.Spec{Topic: "T", Desired: []string{"d"}, Files: spec.Files[:0]}
	body, err = fitSpec(small, limitMeta)
	require.NoError(t, err)
	require.Equal(t, work.RenderSpec(small, limitMeta), body, "a spec that fits is untouched")
}

func TestFitPlanCutsReasonsButNeverSteps(t *testing.T) {
	plan := &work.Plan{Items: []work.Item{{Path: "a.go", Action: work.ActionModify,
		Reason: strings.Repeat("why ", 30000), Steps: []work.Step{{Text: "step one"}, {Text: "step two"}}}}}
	body, err := fitPlan(plan, limitMeta)
	require.NoError(t, err)
	require.LessOrEqual(t, len(body), maxBodyBytes)
	back, _, err := work.ParsePlan(body)
	require.NoError(t, err)
	require.Len(t, back.Items, 1)
	require.Equal(t, []work.Step{{Text: "step one"}, {Text: "step two"}}, back.Items[0].Steps)

	// Many items, each reason short but together too long: reasons go
	// down to nothing before any step is touched.
	many := &work.Plan{}
	for i := range 250 {
		many.Items = append(many.Items, work.Item{Path: fmt.Sprintf("pkg/file%03d.go", i), Action: work.ActionModify,
			Reason: strings.Repeat("because ", 40), Steps: []work.Step{{Text: fmt.Sprintf("change %d", i)}}})
	}
	body, err = fitPlan(many, limitMeta)
	require.NoError(t, err)
	require.LessOrEqual(t, len(body), maxBodyBytes)
	back, _, err = work.ParsePlan(body)
	require.NoError(t, err)
	require.Len(t, back.Items, 250)
	require.Equal(t, "change 249", back.Items[249].Steps[0].Text)

	// Items alone over the limit: an error saying so, never a cut plan.
	big := &work.Plan{}
	for i := range 400 {
		big.Items = append(big.Items, work.Item{Path: fmt.Sprintf("pkg/file%03d.go", i), Action: work.ActionModify,
			Steps: []work.Step{{Text: strings.Repeat("change this carefully ", 10)}}})
	}
	_, err = fitPlan(big, limitMeta)
	require.Error(t, err)
	require.ErrorAs(t, err, new(errPermanent))
	require.Contains(t, err.Error(), "too large for one GitHub comment")
	require.Contains(t, err.Error(), "fewer files")
	require.Contains(t, err.Error(), "`/plan`")

	// A spec whose file list alone is too long: no spec comment exists to
	// edit, so the advice is to narrow the issue and redo the spec.
	spec := &work.Spec{Topic: "T"}
	for i := range 3000 {
		spec.Files = append(spec.Files, work.FileChange{Path: fmt.Sprintf("pkg/file%04d.go", i), Action: work.ActionModify})
	}
	_, err = fitSpec(spec, limitMeta)
	require.ErrorAs(t, err, new(errPermanent))
	require.Contains(t, err.Error(), "`/spec`")
	require.NotContains(t, err.Error(), "edit the spec comment")
}

func TestFitPRBodyKeepsFixesLine(t *testing.T) {
	spec := &work.Spec{Topic: "T", Desired: []string{"d"}}
	plan := &work.Plan{Items: []work.Item{{Path: "a.go", Action: work.ActionModify, Steps: []work.Step{{Text: "s"}}}}}
	rec := &pushRecord{Summary: strings.Repeat("summary ", 20000)}
	body := fitPRBody(12, spec, plan, rec)
	require.LessOrEqual(t, len(body), maxBodyBytes)
	require.Contains(t, body, "(cut: ")
	require.Contains(t, body, "Fixes #12")
	require.Contains(t, body, "`a.go`")

	// Even a plan too long for the description keeps the closing line.
	for i := range 3000 {
		plan.Items = append(plan.Items, work.Item{Path: fmt.Sprintf("f%04d.go", i), Action: work.ActionAdd,
			Steps: []work.Step{{Text: "write it"}}})
	}
	body = fitPRBody(12, spec, plan, rec)
	require.LessOrEqual(t, len(body), maxBodyBytes)
	require.True(t, strings.HasSuffix(strings.TrimSpace(body), "</sub>"))
	require.Contains(t, body, "Fixes #12")
}

func TestCutNote(t *testing.T) {
	require.Equal(t, "short", cutNote("short", 10))
	s := cutNote(strings.Repeat("é", 1000), 100)
	require.LessOrEqual(t, len(s), 100)
	require.True(t, utf8.ValidString(s))
	require.Regexp(t, `… \(cut: \d+ characters\)$`, s)
	kept := utf8.RuneCountInString(strings.TrimRight(s[:strings.Index(s, "…")], ""))
	require.Equal(t, fmt.Sprintf("… (cut: %d characters)", 1000-kept), s[strings.Index(s, "…"):])
}
