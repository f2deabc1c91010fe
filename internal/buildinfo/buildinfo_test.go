package buildinfo

import (
	"strings"
	"testing"
)

// A revision given through -ldflags (a container build without .git) wins,
// and its -dirty suffix becomes the modified note.
func TestReadFromLdflags(t *testing.T) {
	defer func(v, r string) { Version, Revision = v, r }(Version, Revision)
	Version, Revision = "v1.2.3", "0123456789abcdef-dirty"
	s := Read().String()
	for _, want := range []string{"bot v1.2.3 (github.com/issuesmith/issuesmith)", "revision: 0123456789abcdef (modified"} {
		if !strings.Contains(s, want) {
			t.Errorf("stamp %q lacks %q", s, want)
		}
	}
}
