package repo

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
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
// binary files and files over 32 MB are skipped. Errors satisfying
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
	files, err := w.grepFiles(ctx, start, include, exclude)
	if err != nil {
		return "", err
	}
	limit := p.MaxMatches
	if limit <= 0 || limit > MaxGrepMatches {
		limit = MaxGrepMatches
	}
	hits, stats, err := w.searchAll(ctx, files, newMatcher(re), limit)
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

// grepFiles lists the files under start that pass the include and exclude
// globs. A start that is a file is searched even if ignored.
func (w *Workspace) grepFiles(ctx context.Context, start string, include, exclude *globSet) ([]string, error) {
	st, err := w.stat(start)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{start}, nil
	}
	var files []string
	err = w.walk(ctx, start, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if rel != start && !exclude.empty() && exclude.match(rel) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if !include.empty() && !include.match(rel) {
			return nil
		}
		if !exclude.empty() && exclude.matchAnyDir(rel) {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("grep %s: %w", start, err)
	}
	return files, nil
}

// searchAll runs searchFile over files on GOMAXPROCS workers and returns the
// files with matches sorted by path.
func (w *Workspace) searchAll(ctx context.Context, files []string, m *matcher, limit int) ([]fileHits, grepStats, error) {
	var (
		mu    sync.Mutex
		hits  []fileHits
		stats grepStats
		wg    sync.WaitGroup
	)
	jobs := make(chan string)
	workers := min(runtime.GOMAXPROCS(0), max(len(files), 1))
	for range workers {
		wg.Go(func() {
			var local []fileHits
			var ls grepStats
			for rel := range jobs {
				if h, ok := w.searchFile(rel, m, limit, &ls); ok {
					local = append(local, h)
				}
			}
			mu.Lock()
			hits = append(hits, local...)
			stats.searched += ls.searched
			stats.binary += ls.binary
			stats.huge += ls.huge
			mu.Unlock()
		})
	}
	var err error
	for _, f := range files {
		if err = ctx.Err(); err != nil {
			break
		}
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, stats, err
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].path < hits[j].path })
	return hits, stats, nil
}

// searchFile finds the matching lines of one file. The whole buffer is
// tested first so files without a match (most of them) cost one pass.
func (w *Workspace) searchFile(rel string, m *matcher, limit int, st *grepStats) (fileHits, bool) {
	info, err := w.root.Stat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return fileHits{}, false
	}
	if info.Size() > maxGrepFileBytes {
		st.huge++
		return fileHits{}, false
	}
	data, err := w.root.ReadFile(rel)
	if err != nil {
		return fileHits{}, false
	}
	if IsBinary(data) {
		st.binary++
		return fileHits{}, false
	}
	st.searched++
	if !m.mayMatch(data) {
		return fileHits{}, false
	}
	h := fileHits{path: rel}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if m.line.Match(bytes.TrimSuffix(line, []byte{'\r'})) {
			h.count++
			if len(h.lines) < limit {
				h.lines = append(h.lines, n)
			}
		}
	}
	return h, h.count > 0
}

// matcher tests lines against the pattern. buf is the pattern in multi-line
// mode, used to rule a whole file out in one pass: ^ and $ then mean line
// boundaries, so a file with a matching line always matches buf. Patterns
// using \A or \z get no buf, as the buffer test would give false negatives.
type matcher struct {
	line *regexp.Regexp
	buf  *regexp.Regexp
}

// newMatcher builds the matcher for re.
func newMatcher(re *regexp.Regexp) *matcher {
	m := &matcher{line: re}
	src := re.String()
	if !strings.Contains(src, `\A`) && !strings.Contains(src, `\z`) {
		m.buf, _ = regexp.Compile("(?m)" + src)
	}
	return m
}

// mayMatch reports whether data may hold a matching line.
// CRLF files go line by line: "$" in the buffer would stop before "\r".
func (m *matcher) mayMatch(data []byte) bool {
	return m.buf == nil || m.buf.Match(data) || bytes.IndexByte(data, '\r') >= 0
}
