package summaries

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// Source is the read-only view of a checkout that Build needs.
// *repo.Workspace implements it; paths are repo-relative with slashes.
type Source interface {
	Dir() string
	Files(ctx context.Context) ([]string, error)
	ReadBytes(path string) ([]byte, error)
}

// Options configure Build and Refresh. The zero value builds outline-only
// summaries with GOMAXPROCS workers.
type Options struct {
	// Model writes the one-line summaries. Nil means outline-only: each
	// file's summary is derived from its outline and docstring, and
	// Index.ModelSummaries reports false.
	Model llm.Model
	// Cache keeps model summaries by git blob hash so that an unchanged
	// file is never summarised twice. Nil keeps them only in the Index.
	Cache Cache
	// Workers bounds parallel parsing (default GOMAXPROCS).
	Workers int
	// SummaryWorkers bounds parallel model calls (default 4).
	SummaryWorkers int
	// MaxFileBytes skips larger files (default 1 MiB): they are listed
	// but get no outline, terms or summary.
	MaxFileBytes int64
	// Progress, when set, is told a work.EventCount after each file is
	// parsed and after each summary: Stage "parse" or "summarize", Count
	// done of Of. It may be called from several goroutines at once.
	Progress work.Progress
}

// Stats counts what a Build or Refresh did.
type Stats struct {
	Files      int // files in the index
	Parsed     int // files read and parsed by this call
	Removed    int // files dropped because they left the tree
	Summarised int // summaries written by the model in this call
	CacheHits  int // summaries found in the Cache
	Tokens     llm.Usage
	Elapsed    time.Duration
	// Outlines counts the indexed files by the parser of their outline
	// (SourceTreeSitter, SourceCtags, SourcePlain); binary, unreadable
	// and oversized files have none.
	Outlines map[string]int
}

// FileInfo is what the index knows about one file.
type FileInfo struct {
	Path string
	// Blob is the git blob hash of the content (sha1 of "blob <len>\0" +
	// content), the key of the summary cache.
	Blob    string
	Size    int64
	Outline *Outline // nil for binary, unreadable or oversized files
	// Summary is the one-line summary; FromModel says whether a model
	// wrote it (false: derived from the outline).
	Summary   string
	FromModel bool

	modTime time.Time
	imports []importRef
	terms   map[string]int32 // content term frequencies
	length  int              // number of content terms
	symbols []string         // definition names
	doc     string           // module docstring / leading comment, first sentence
	// goModule is the module path when the file is a go.mod.
	goModule string
	// generated: the file says it is written by a tool (Go's
	// "// Code generated ... DO NOT EDIT." line, "@generated").
	generated bool
	// head is the start of the content, kept from parse to summary only
	// when a model will summarise the file.
	head string
}

// Index holds the outline, imports, terms and summary of every file of one
// checkout, the import graph between them, and answers Search. Methods are
// safe for concurrent use; Refresh takes a write lock.
type Index struct {
	mu    sync.RWMutex
	opts  Options
	files map[string]*FileInfo
	paths []string // sorted
	graph *importGraph
	post  *searchIndex
	// modelUsed is true when a model or the cache wrote summaries.
	modelUsed bool
	last      Stats
	// src is the tree of the last build, read again by Search only to
	// confirm verbatim phrases.
	src Source
}

// Build reads every file src lists, parses outlines and imports in
// parallel, builds the import graph and search index, and writes summaries
// (with the model and cache when configured). It fails only on our own
// errors (listing the tree, a model or cache failure); unreadable or binary
// files are kept without an outline.
func Build(ctx context.Context, src Source, opts Options) (*Index, error) {
	ix := &Index{opts: withDefaults(opts), files: map[string]*FileInfo{}}
	if _, err := ix.refresh(ctx, src); err != nil {
		return nil, err
	}
	return ix, nil
}

func withDefaults(o Options) Options {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.SummaryWorkers <= 0 {
		o.SummaryWorkers = 4
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 1 << 20
	}
	return o
}

// Refresh brings the index up to date with src after new commits: files
// whose size and modification time are unchanged are not read again, files
// whose content hash is unchanged keep their summary, and only changed blobs
// are re-parsed and re-summarised. Removed files are dropped.
func (ix *Index) Refresh(ctx context.Context, src Source) (Stats, error) {
	return ix.refresh(ctx, src)
}

func (ix *Index) refresh(ctx context.Context, src Source) (Stats, error) {
	start := time.Now()
	ix.mu.RLock()
	old, built := ix.files, ix.post != nil
	ix.mu.RUnlock()
	next, todo, removed, err := changedFiles(ctx, src, old)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Removed: removed}
	if err := ix.parseAll(ctx, src, todo, next, old); err != nil {
		return Stats{}, err
	}
	st.Parsed = len(todo)
	sum, err := ix.summarize(ctx, next, todo)
	if err != nil {
		return Stats{}, err
	}
	st.Summarised, st.CacheHits, st.Tokens = sum.Summarised, sum.CacheHits, sum.Tokens
	st.Files = len(next)
	st.Outlines = map[string]int{}
	for _, f := range next {
		if f.Outline != nil {
			st.Outlines[f.Outline.Source]++
		}
	}
	if len(todo) == 0 && st.Removed == 0 && built {
		st.Elapsed = time.Since(start)
		ix.mu.Lock()
		ix.src, ix.last = src, st // nothing changed: keep graph and search tables
		ix.mu.Unlock()
		return st, nil
	}
	sorted := make([]string, 0, len(next))
	for p := range next {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	g := buildGraph(next, sorted)
	post := buildSearchIndex(next, sorted)
	st.Elapsed = time.Since(start)

	ix.mu.Lock()
	ix.files, ix.paths, ix.graph, ix.post, ix.src = next, sorted, g, post, src
	ix.modelUsed = false
	for _, f := range next {
		if f.FromModel {
			ix.modelUsed = true
			break
		}
	}
	ix.last = st
	ix.mu.Unlock()
	return st, nil
}

// changedFiles lists src and compares each regular file's size and
// modification time with old: unchanged entries are carried into next,
// the others get a fresh entry and are listed in todo (sorted).
func changedFiles(ctx context.Context, src Source, old map[string]*FileInfo) (next map[string]*FileInfo, todo []string, removed int, err error) {
	paths, err := src.Files(ctx)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list files: %w", err)
	}
	sort.Strings(paths)
	root, err := os.OpenRoot(src.Dir())
	if err != nil {
		return nil, nil, 0, fmt.Errorf("open %s: %w", src.Dir(), err)
	}
	defer root.Close()
	next = make(map[string]*FileInfo, len(paths))
	for _, p := range paths {
		fi, err := root.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // vanished or not a regular file (symlink, socket)
		}
		if prev := old[p]; prev != nil && prev.Size == fi.Size() && prev.modTime.Equal(fi.ModTime()) {
			next[p] = prev
			continue
		}
		next[p] = &FileInfo{Path: p, Size: fi.Size(), modTime: fi.ModTime()}
		todo = append(todo, p)
	}
	for p := range old {
		if next[p] == nil {
			removed++
		}
	}
	return next, todo, removed, nil
}

// parseAll reads and parses the files in todo with a worker pool, filling
// their entries in next. An entry whose blob hash matches the previous
// version keeps the old summary.
func (ix *Index) parseAll(ctx context.Context, src Source, todo []string, next, old map[string]*FileInfo) error {
	jobs := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(ix.opts.Workers, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				ix.parseOne(src, next[p], old[p])
				if ix.opts.Progress != nil {
					mu.Lock()
					done++
					d := done
					mu.Unlock()
					ix.opts.Progress(counted("parse", d, len(todo)))
				}
			}
		}()
	}
	var err error
feed:
	for _, p := range todo {
		select {
		case jobs <- p:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("parse files: %w", err)
	}
	return nil
}

// parseOne fills f from the file's content. Each entry is written by one
// goroutine only.
func (ix *Index) parseOne(src Source, f, prev *FileInfo) {
	if f.Size > ix.opts.MaxFileBytes {
		return
	}
	data, err := src.ReadBytes(f.Path)
	if err != nil {
		return // vanished between listing and reading, or refused: no outline
	}
	f.Size = int64(len(data))
	f.Blob = BlobHash(data)
	if prev != nil && prev.Blob == f.Blob && prev.Outline != nil {
		*f = FileInfo{Path: f.Path, Blob: f.Blob, Size: f.Size, modTime: f.modTime, Outline: prev.Outline,
			Summary: prev.Summary, FromModel: prev.FromModel, imports: prev.imports, terms: prev.terms,
			length: prev.length, symbols: prev.symbols, doc: prev.doc, goModule: prev.goModule, generated: prev.generated}
		return
	}
	o, err := OutlineOf(f.Path, data)
	if err != nil {
		return // binary
	}
	f.Outline = o
	f.imports = parseImports(f.Path, data)
	f.symbols = o.Names()
	f.terms = make(map[string]int32)
	eachTerm(string(data), func(t string) {
		if n, ok := f.terms[t]; ok {
			f.terms[t] = n + 1
		} else {
			f.terms[strings.Clone(t)] = 1 // do not pin the whole content
		}
		f.length++
	})
	f.doc = leadingDoc(f.Path, data)
	f.generated = isGenerated(data)
	if ix.opts.Model != nil {
		f.head = strings.ToValidUTF8(string(data[:min(len(data), maxPromptBytes)]), "")
	}
	if path.Base(f.Path) == "go.mod" {
		f.goModule = parseGoModLine(data)
	}
}

// BlobHash returns the git blob hash of content, as `git hash-object` would.
func BlobHash(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Files returns the indexed paths, sorted.
func (ix *Index) Files() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return append([]string(nil), ix.paths...)
}

// File returns what the index knows about path, or nil.
func (ix *Index) File(path string) *FileInfo {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.files[path]
}

// Summary returns the one-line summary of path, "" when the file is not
// indexed.
func (ix *Index) Summary(path string) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if f := ix.files[path]; f != nil {
		return f.Summary
	}
	return ""
}

// ModelSummaries reports whether summaries were written by a model; false
// means outline-only summaries.
func (ix *Index) ModelSummaries() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.modelUsed
}

// LastStats returns the Stats of the last Build or Refresh.
func (ix *Index) LastStats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.last
}

// counted is the EventCount of done of total in stage.
func counted(stage string, done, total int) work.Event {
	return work.Event{Kind: work.EventCount, Agent: llm.RoleSummarizer, Stage: stage, Count: done, Of: total}
}
