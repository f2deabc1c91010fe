package repo

import (
	"context"
	"fmt"
	"regexp"
)

// Grep limits.
const (
	// MaxGrepMatches is the most matching lines one grep call shows.
	MaxGrepMatches = 50
	// MaxGrepContext caps GrepParams.Context.
	MaxGrepContext = 10
	// maxGrepFileBytes skips files larger than this (generated data).
	maxGrepFileBytes = 32 << 20
)

// GrepParams are the arguments of the grep tool.
type GrepParams struct {
	Pattern    string   `json:"pattern" jsonschema:"description=Regular expression (RE2 syntax) or, with literal, plain text to find"`
	Literal    bool     `json:"literal,omitempty" jsonschema:"description=Treat pattern as plain text instead of a regular expression"`
	IgnoreCase bool     `json:"ignore_case,omitempty" jsonschema:"description=Match without regard to letter case"`
	Path       string   `json:"path,omitempty" jsonschema:"description=File or folder to search, relative to the repository root (default: the whole repository)"`
	Include    []string `json:"include,omitempty" jsonschema:"description=Only search files matching one of these globs, e.g. *.go or cmd/**/*.go"`
	Exclude    []string `json:"exclude,omitempty" jsonschema:"description=Skip files or folders matching one of these globs, e.g. *_test.go or testdata"`
	Context    int      `json:"context,omitempty" jsonschema:"description=Lines of context to show before and after each match (0 to 10)"`
	MaxMatches int      `json:"max_matches,omitempty" jsonschema:"description=How many matching lines to show (default and maximum 50)"`
}

// fileHits is what the parallel phase learns about one file.
type fileHits struct {
	path  string
	lines []int // 1-based numbers of the first MaxGrepMatches matching lines
	count int   // all matching lines
}

// grepStats counts what a search skipped.
type grepStats struct {
	searched, binary, huge int
}

// Grep searches the files under p.Path for p.Pattern, in parallel, and renders
// the first matching lines (grep style, "path:line: text", context lines as
// "path-line- text") with a count of the matches not shown. Ignored files,
// binary files, files over 32 MB and git submodules are skipped. Errors satisfying
// IsModelError are mistakes to report to the model.
func (w *Workspace) Grep(ctx context.Context, p GrepParams) (string, error) {
	re, err := compilePattern(p)
	if err != nil {
		return "", err
	}
	start, err := Clean(p.Path)
	if err != nil {
		return "", err
	}
	include, err := newGlobSet(p.Include)
	if err != nil {
		return "", err
	}
	exclude, err := newGlobSet(p.Exclude)
	if err != nil {
		return "", err
	}
	limit := p.MaxMatches
	if limit <= 0 || limit > MaxGrepMatches {
		limit = MaxGrepMatches
	}
	g := &grepRun{w: w, m: newMatcher(re, p.Literal && !p.IgnoreCase), limit: limit, include: include, exclude: exclude}
	hits, stats, err := g.search(ctx, start)
	if err != nil {
		return "", err
	}
	return w.renderGrep(p, hits, stats, limit, min(max(p.Context, 0), MaxGrepContext)), nil
}

// compilePattern builds the line matcher from the tool arguments.
func compilePattern(p GrepParams) (*regexp.Regexp, error) {
	if p.Pattern == "" {
		return nil, fmt.Errorf("empty pattern: %w", ErrBadArgument)
	}
	expr := p.Pattern
	if p.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if p.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not a valid RE2 regular expression (%v); set literal=true to search plain text: %w",
			p.Pattern, err, ErrBadArgument)
	}
	return re, nil
}
