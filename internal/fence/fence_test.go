package fence

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, s string
		min     int
		want    string
	}{
		{"plain text", "x := 1", 3, "```"},
		{"inline code", "use `go test`", 3, "```"},
		{"its own fence", "a\n```go\nb\n```\n", 3, "````"},
		{"longer fence", "``````", 3, "```````"},
		{"minimum wins", "plain", 4, "````"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, For(tc.s, tc.min))
		})
	}
}

// The fenced text can never contain the closing fence on a line of its own.
func FuzzWrapCannotBeClosedEarly(f *testing.F) {
	for _, s := range []string{"", "```", "a\n```\nb", "````x````", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Wrap(s, "text")
		fenceLine := out[:strings.Index(out, "text\n")]
		body := strings.TrimSuffix(strings.TrimPrefix(out, fenceLine+"text\n"), fenceLine)
		require.NotContains(t, body, fenceLine, "the body holds the fence")
		require.Equal(t, strings.TrimRight(s, "\n")+"\n", body)
	})
}
