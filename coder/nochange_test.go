package coder

import (
	"testing"

	"github.com/issuesmith/issuesmith/work"
	"github.com/stretchr/testify/require"
)

func TestImplementNoChangeNeedsTheExplicitTag(t *testing.T) {
	t.Parallel()
	a, b := "package p\n\nfunc A() int { return 1 }\n", "package p\n\nfunc B() int { return 1 }\n"
	ws := fixture(t, map[string]string{"a.go": a, "b.go": b})
	c, srv := scripted(t, "no_change", Options{Attempts: 3, SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Make `A` return 1."),
		item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())

	ia := itemByPath(t, res, "a.go")
	require.Equal(t, ItemSkipped, ia.Status)
	require.Equal(t, "no code change: A already returns 1, as the step asks.", ia.Reason)
	require.Equal(t, 1, ia.Attempts)
	require.Equal(t, a, readFile(t, ws, "a.go"))

	ib := itemByPath(t, res, "b.go")
	require.Equal(t, ItemDone, ib.Status)
	require.Equal(t, 2, ib.Attempts, "prose without blocks is refused, not taken as done")
	require.Contains(t, srv.Requests()[2].Messages[len(srv.Requests()[2].Messages)-1].Content, "no edit block")
	require.Equal(t, []string{"b.go"}, res.Changes.Paths())
	require.True(t, res.OK())
}

func TestNoChangeTag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text, reason string
		ok                 bool
	}{
		{"reason", "<no-change>already done</no-change>", "already done", true},
		{"multi-line reason folded", "<chat>x</chat>\n<no-change>\n  done by\n item 1\n</no-change>", "done by item 1", true},
		{"empty reason", "<no-change>  </no-change>", "", false},
		{"unclosed", "<no-change>already done", "", false},
		{"prose", "nothing to change here", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, ok := noChange(tc.text)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.reason, reason)
		})
	}
}
