package coder

import (
	"path"
	"strings"
)

// DefaultBlocked is the blocked-path glob list used when Options.Blocked is
// nil: CI workflows run with repository secrets, and so do the composite
// actions they use, so the bot never edits either.
var DefaultBlocked = []string{".github/workflows/**", ".github/actions/**"}

// Globs is a list of slash-separated path patterns. A segment may use the
// path.Match syntax (*, ?, [...]); a "**" segment matches zero or more
// segments. A pattern without a slash also matches the base name at any depth
// (like .gitignore), so "*.pem" blocks every PEM file.
type Globs []string

// Match reports whether the repo-relative slash path p matches any pattern.
// Paths are cleaned first, so "./.github//workflows/ci.yml" is caught too.
func (g Globs) Match(p string) bool {
	p = cleanRel(p)
	for _, pat := range g {
		pat = strings.Trim(strings.TrimSpace(pat), "/")
		if pat == "" {
			continue
		}
		if !strings.Contains(pat, "/") && matchSegments([]string{pat}, []string{path.Base(p)}) {
			return true
		}
		if matchSegments(strings.Split(pat, "/"), strings.Split(p, "/")) {
			return true
		}
	}
	return false
}

// Validate reports the first malformed pattern, so a bad repository config is
// rejected up front instead of silently blocking nothing.
func (g Globs) Validate() error {
	for _, pat := range g {
		for _, seg := range strings.Split(pat, "/") {
			if seg == "**" {
				continue
			}
			if _, err := path.Match(seg, ""); err != nil {
				return &GlobError{Pattern: pat, Err: err}
			}
		}
	}
	return nil
}

// GlobError names a malformed blocked-path pattern.
type GlobError struct {
	Pattern string
	Err     error
}

// Error names the pattern and what is wrong with it.
func (e *GlobError) Error() string { return "blocked path pattern " + e.Pattern + ": " + e.Err.Error() }

// Unwrap returns the path.Match error.
func (e *GlobError) Unwrap() error { return e.Err }

// matchSegments matches pattern segments against path segments, "**"
// standing for any number of segments (including none).
func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if matchSegments(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		ok, err := path.Match(pat[0], segs[0])
		if err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// cleanRel turns a model-supplied path into a clean repo-relative slash path.
func cleanRel(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), "\\", "/")
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}
