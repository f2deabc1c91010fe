package repo

import (
	"fmt"
	"regexp"
	"strings"
)

// globSet matches repo-relative slash paths against gitignore-like globs:
// a pattern without "/" matches a file's name (or, for exclusions, any folder
// on its path); one with "/" matches the whole path, where "**" spans folders,
// "*" and "?" stay within one, "[...]" and "{a,b}" work as in shells, and a
// trailing "/" means everything under that folder.
type globSet struct {
	res []*regexp.Regexp
}

// newGlobSet compiles patterns; an invalid one is an ErrBadArgument.
func newGlobSet(patterns []string) (*globSet, error) {
	gs := &globSet{}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		re, err := compileGlob(p)
		if err != nil {
			return nil, fmt.Errorf("glob %q: %v: %w", p, err, ErrBadArgument)
		}
		gs.res = append(gs.res, re)
	}
	return gs, nil
}

// empty reports whether the set has no pattern.
func (gs *globSet) empty() bool { return len(gs.res) == 0 }

// match reports whether rel matches any pattern.
func (gs *globSet) match(rel string) bool {
	for _, re := range gs.res {
		if re.MatchString(rel) {
			return true
		}
	}
	return false
}

// matchAnyDir reports whether rel or one of its parent folders matches.
func (gs *globSet) matchAnyDir(rel string) bool {
	for p := rel; ; {
		if gs.match(p) {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// compileGlob turns one glob into an anchored regular expression.
func compileGlob(p string) (*regexp.Regexp, error) {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
		b.WriteString("(?:.*/)?")
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	inBrace := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j + 1
		case c == '{' && !inBrace:
			inBrace = true
			b.WriteString("(?:")
		case c == '}' && inBrace:
			inBrace = false
			b.WriteString(")")
		case c == ',' && inBrace:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if inBrace {
		return nil, fmt.Errorf("unclosed {")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
