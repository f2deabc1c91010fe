package ghtext

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Marker is the hidden HTML comment that identifies a comment the bot owns:
// <!-- issuesmith:KIND run=ID v=N -->. Kind says what the comment is
// ("progress", "spec", "plan", ...), Run which run wrote it and Version how
// many times the bot has rewritten it.
type Marker struct {
	Kind    string
	Run     string
	Version int
}

var markerRE = regexp.MustCompile(`<!-- issuesmith:([a-z0-9_-]+)((?: [a-z]+=[^ >]*)*) -->`)

// String renders the marker. Empty Run is written as "-".
func (m Marker) String() string {
	run := m.Run
	if run == "" {
		run = "-"
	}
	return fmt.Sprintf("<!-- issuesmith:%s run=%s v=%d -->", m.Kind, run, m.Version)
}

// ParseMarker finds the first marker in body.
func ParseMarker(body string) (Marker, bool) {
	sm := markerRE.FindStringSubmatch(body)
	if sm == nil {
		return Marker{}, false
	}
	m := Marker{Kind: sm[1]}
	for _, kv := range strings.Fields(sm[2]) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "run":
			if v != "-" {
				m.Run = v
			}
		case "v":
			m.Version, _ = strconv.Atoi(v)
		}
	}
	return m, true
}

// WithMarker returns body with its marker set to m: an existing marker is
// replaced, otherwise m is put on the first line.
func WithMarker(body string, m Marker) string {
	if loc := markerRE.FindStringIndex(body); loc != nil {
		return body[:loc[0]] + m.String() + body[loc[1]:]
	}
	return m.String() + "\n" + body
}

// Matches reports whether found identifies the same comment as want: same
// kind and, when want names a run, the same run.
func (want Marker) Matches(found Marker) bool {
	return found.Kind == want.Kind && (want.Run == "" || want.Run == found.Run)
}

// StripMarker returns body without its marker, trimmed, for comparing texts.
func StripMarker(body string) string {
	return strings.TrimSpace(markerRE.ReplaceAllString(body, ""))
}
