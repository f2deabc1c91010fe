package ghtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMarkerRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		want Marker
		ok   bool
	}{
		{"full", "<!-- issuesmith:spec run=abc v=3 -->\nbody", Marker{"spec", "abc", 3}, true},
		{"no run", "x <!-- issuesmith:progress run=- v=1 --> y", Marker{"progress", "", 1}, true},
		{"plain text", "issuesmith:spec run=abc", Marker{}, false},
		{"other tool", "<!-- other:spec -->", Marker{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := ParseMarker(tc.body)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, m)
			if ok {
				assert.Equal(t, 1, strings.Count(WithMarker(tc.body, Marker{Kind: "x", Version: 9}), "<!-- issuesmith:"))
			}
		})
	}
}
