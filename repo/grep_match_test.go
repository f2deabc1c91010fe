package repo

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveLines is the reference: every line tested with the regexp alone.
func naiveLines(re *regexp.Regexp, data []byte) []int {
	var got []int
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if i == bytes.Count(data, []byte{'\n'}) && len(line) == 0 {
			break
		}
		if re.Match(bytes.TrimSuffix(line, []byte{'\r'})) {
			got = append(got, i+1)
		}
	}
	return got
}

// fastLines runs the matcher under test.
func fastLines(re *regexp.Regexp, plain bool, data []byte) []int {
	var got []int
	newMatcher(re, plain).find(data, &scratch{}, func(n int, _ []byte) { got = append(got, n) })
	return got
}

func TestMatcherAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("grep_match.go")
	require.NoError(t, err)
	corpus := [][]byte{
		src,
		[]byte("Foo\r\nfoo bar\r\nFOO\n\nfoofoo foo\nno\n"),
		[]byte("the \u212aelvin sign and the \u017fong s\nkelvin\n"),
		[]byte("no newline at end: foo"),
		[]byte(""),
	}
	patterns := []struct {
		expr  string
		plain bool
	}{
		{regexp.QuoteMeta("foo"), true},
		{regexp.QuoteMeta("func ("), true},
		{"(?i)foo", false},
		{"(?i)kelvin", false},
		{"(?i)LONG S", false},
		{`^foo$`, false},
		{`foo\b`, false},
		{`func \(\w+ \*matcher\) \w+\(`, false},
		{`(?i)bytes\.index\w*`, false},
		{`(fo)+o`, false},
		{`x{2,}|foo`, false},
		{`\Afoo`, false},
		{`foo\z`, false},
		{`(?i)ß`, false},
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p.expr)
		for i, data := range corpus {
			require.Equal(t, naiveLines(re, data), fastLines(re, p.plain, data), "pattern %q corpus %d", p.expr, i)
		}
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("foo", false, false, []byte("a foo\nFOO\r\nbar foo foo\n"))
	f.Add("k.s", true, false, []byte("\u212a \u017f\nK S\n"))
	f.Add("a+b", false, true, []byte("a+b\naab\n"))
	f.Add("a\nb", false, true, []byte("a\nb\n"))
	f.Add("a\r", false, true, []byte("a\r\nb\n"))
	f.Fuzz(func(t *testing.T, pattern string, fold, literal bool, data []byte) {
		expr := pattern
		if literal {
			expr = regexp.QuoteMeta(expr)
		}
		if fold {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		require.Equal(t, naiveLines(re, data), fastLines(re, literal && !fold, data))
	})
}
