package clip

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
	}{
		{"fits", "abc", 3, "abc"},
		{"ascii cut", "abcdef", 3, "abc…"},
		{"never mid-character", "aéé", 2, "a…"},
		{"on a boundary", "aéé", 3, "aé…"},
		{"zero", "abc", 0, "…"},
		{"negative", "abc", -1, "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Bytes(tc.s, tc.n, "…"))
		})
	}
}

func FuzzBytes(f *testing.F) {
	for _, s := range []string{"", "abc", "日本語のテキスト", "a\xffb"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Bytes(s, n, "")
		if len(s) <= n {
			require.Equal(t, s, got, "text within the budget is kept whole")
			return
		}
		require.LessOrEqual(t, len(got), max(n, 0))
		require.Equal(t, s[:len(got)], got, "a prefix of s")
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(got), "cut mid-character: %q", got)
		}
	})
}
