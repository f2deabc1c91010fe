package repo_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// benchTree is a large real tree for grep: the sources of the Go
// distribution the go command on PATH uses.
var benchTree = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
})

// grepPatterns are the searches compared with GNU grep: a rare identifier, a
// regular expression with a class, and a case-insensitive literal.
var grepPatterns = []struct {
	name    string
	params  repo.GrepParams
	gnuArgs []string
}{
	{"literal", repo.GrepParams{Pattern: "ErrUnexpectedEOF", Literal: true}, []string{"-F", "ErrUnexpectedEOF"}},
	{"regex", repo.GrepParams{Pattern: `func \(\w+ \*Reader\) Read[A-Z]\w*\(`}, []string{"-E", `func \(\w+ \*Reader\) Read[A-Z]\w*\(`}},
	{"ignorecase", repo.GrepParams{Pattern: "deadlock", Literal: true, IgnoreCase: true}, []string{"-F", "-i", "deadlock"}},
}

// BenchmarkGrep compares Workspace.Grep with GNU grep over GOROOT/src, with
// GNU grep told to skip what Grep skips (vendor, binary files). Run with
//
//	go test ./repo -run '^$' -bench Grep -benchtime 5x
//
// and divide the ours/* time by the gnu/* time for the ratio.
func BenchmarkGrep(b *testing.B) {
	if _, err := os.Stat(benchTree()); err != nil {
		b.Skip("GOROOT/src not found")
	}
	ws, err := repo.OpenWorkspace(benchTree())
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for _, p := range grepPatterns {
		b.Run("ours/"+p.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ws.Grep(b.Context(), p.params); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("gnu/"+p.name, func(b *testing.B) {
			if _, err := exec.LookPath("grep"); err != nil {
				b.Skip("grep not installed")
			}
			args := append([]string{"-rnI", "--exclude-dir=vendor", "--exclude-dir=node_modules", "--exclude-dir=.git"}, p.gnuArgs...)
			args = append(args, benchTree())
			for b.Loop() {
				cmd := exec.Command("grep", args...)
				if out, err := cmd.Output(); err != nil && len(out) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSync measures a clone into an empty cache and a fetch of one new
// commit, over loopback HTTP from gittest, for each backend. The repository
// holds 2,000 files of 2 KB.
func BenchmarkSync(b *testing.B) {
	srv := gittest.NewServer(b)
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("pkg%02d/file%04d.go", i%40, i)] = strings.Repeat(fmt.Sprintf("// line of file %d\n", i), 100)
	}
	url := srv.Seed(b, "acme/bench", files)
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		b.Run("clone/"+string(backend), func(b *testing.B) {
			var heap, rss float64
			for b.Loop() {
				c, err := repo.NewCache(b.TempDir(), repo.CacheOptions{Backend: backend})
				if err != nil {
					b.Fatal(err)
				}
				st, err := c.Sync(b.Context(), url, "")
				if err != nil {
					b.Fatal(err)
				}
				heap, rss = max(heap, float64(st.PeakHeapBytes)), max(rss, float64(st.MaxRSSBytes))
			}
			b.ReportMetric(heap/(1<<20), "peak-heap-MB")
			b.ReportMetric(rss/(1<<20), "git-rss-MB")
		})
		b.Run("fetch/"+string(backend), func(b *testing.B) {
			c, err := repo.NewCache(b.TempDir(), repo.CacheOptions{Backend: backend})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Sync(b.Context(), url, ""); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				b.StopTimer()
				n++
				srv.Commit(b, "acme/bench", "main", map[string]string{"pkg00/new.go": fmt.Sprint(n)}, "one more")
				b.StartTimer()
				if _, err := c.Sync(b.Context(), url, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSyncLarge clones GOROOT/src (about 11,000 files, 150 MB) imported
// into one commit, with each backend, and reports wall time and memory: the
// Go heap growth for go-git, the git process's peak RSS for the CLI.
//
//	go test ./repo -run '^$' -bench SyncLarge -benchtime 1x
func BenchmarkSyncLarge(b *testing.B) {
	if _, err := os.Stat(benchTree()); err != nil {
		b.Skip("GOROOT/src not found")
	}
	srv := gittest.NewServer(b)
	srv.ImportDir(b, "go/src", "main", benchTree())
	url := srv.RepoURL("go/src")
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		b.Run(string(backend), func(b *testing.B) {
			for b.Loop() {
				c, err := repo.NewCache(b.TempDir(), repo.CacheOptions{Backend: backend})
				if err != nil {
					b.Fatal(err)
				}
				st, err := c.Sync(b.Context(), url, "")
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(st.PeakHeapBytes)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(st.MaxRSSBytes)/(1<<20), "git-rss-MB")
				b.ReportMetric(float64(st.SizeBytes)/(1<<20), "store-MB")
				b.ReportMetric(float64(st.Duration.Milliseconds()), "clone-ms")
				start := time.Now()
				wt, err := c.Prepare(b.Context(), repo.PrepareOptions{URL: url, Branch: "b", RunID: "r"})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(wt.Sync.Duration.Milliseconds()), "fetch-ms")
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "prepare-ms")
				if err := os.WriteFile(filepath.Join(wt.Dir, "fmt", "print.go"), []byte("package fmt\n"), 0o644); err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				if _, err := wt.Commit(b.Context(), repo.CommitOptions{Message: "one file", Author: repo.Signature{Name: "b", Email: "b@example.com"}}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "commit-ms")
			}
		})
	}
}

// BenchmarkFiles lists GOROOT/src as summaries does, and renders its tree
// two levels deep as list_dir does.
func BenchmarkFiles(b *testing.B) {
	ws, err := repo.OpenWorkspace(benchTree())
	if err != nil {
		b.Skip("GOROOT/src not found")
	}
	defer ws.Close()
	b.Run("files", func(b *testing.B) {
		for b.Loop() {
			if _, err := ws.Files(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list_dir", func(b *testing.B) {
		for b.Loop() {
			if _, err := ws.ListDir(b.Context(), repo.ListDirParams{Depth: 2}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
