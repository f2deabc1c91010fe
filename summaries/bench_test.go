package summaries_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
)

// benchDir is the large real tree the benchmarks read: $SUMMARIES_BENCH_DIR,
// default GOROOT (about 15,000 files).
func benchDir() string {
	if d := os.Getenv("SUMMARIES_BENCH_DIR"); d != "" {
		return d
	}
	return goroot()
}

// goroot is the Go distribution the go command on PATH uses.
func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// BenchmarkOutlineImports parses outline and imports of every file of the
// tree (content read beforehand) with GOMAXPROCS workers and reports files
// per second.
//
//	SUMMARIES_BENCH_DIR=/root/go/pkg/mod go test ./summaries -run '^$' -bench OutlineImports -benchtime 1x
func BenchmarkOutlineImports(b *testing.B) {
	ws, err := repo.OpenWorkspace(benchDir())
	require.NoError(b, err)
	defer ws.Close()
	paths, err := ws.Files(b.Context())
	require.NoError(b, err)
	type file struct {
		path string
		data []byte
	}
	var files []file
	bytes := 0
	for _, p := range paths {
		if d, err := ws.ReadBytes(p); err == nil && len(d) <= 1<<20 {
			files = append(files, file{p, d})
			bytes += len(d)
		}
	}
	b.SetBytes(int64(bytes))
	cpu0 := cpuTime()
	b.ResetTimer()
	var parsed, syms int
	for b.Loop() {
		jobs := make(chan file)
		var wg sync.WaitGroup
		var mu sync.Mutex
		parsed, syms = 0, 0
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, s := 0, 0
				for f := range jobs {
					o, err := summaries.OutlineOf(f.path, f.data)
					if err == nil {
						n++
						s += len(o.Symbols) + len(o.Imports)
					}
				}
				mu.Lock()
				parsed += n
				syms += s
				mu.Unlock()
			}()
		}
		for _, f := range files {
			jobs <- f
		}
		close(jobs)
		wg.Wait()
	}
	b.ReportMetric(float64(len(files))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	// The machine may be shared: files per CPU-second is the figure that
	// does not depend on the load of other processes.
	b.ReportMetric(float64(len(files))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "files/cpu-s")
	b.ReportMetric(float64(len(files)), "files")
	b.Logf("%d files (%d text), %d symbols+imports, %d MB, GOMAXPROCS=%d", len(files), parsed, syms, bytes>>20, runtime.GOMAXPROCS(0))
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBuild is the whole index of the tree: listing, reading, outlines,
// imports, terms, import graph (no model).
func BenchmarkBuild(b *testing.B) {
	ws, err := repo.OpenWorkspace(benchDir())
	require.NoError(b, err)
	defer ws.Close()
	var n int
	cpu0 := cpuTime()
	for b.Loop() {
		idx, err := summaries.Build(b.Context(), ws, summaries.Options{})
		require.NoError(b, err)
		n = len(idx.Files())
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "files/cpu-s")
	b.ReportMetric(float64(n), "files")
}

// BenchmarkRefreshOneFile changes one file of a copy of GOROOT/src and
// refreshes the index; it fails unless exactly one file is read.
func BenchmarkRefreshOneFile(b *testing.B) {
	dir := b.TempDir()
	require.NoError(b, exec.Command("cp", "-r", filepath.Join(goroot(), "src"), dir).Run())
	dir = filepath.Join(dir, "src")
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(b, err)
	defer ws.Close()
	src := &countingSource{Workspace: ws}
	idx, err := summaries.Build(b.Context(), src, summaries.Options{})
	require.NoError(b, err)
	target := filepath.Join(dir, "net/http/server.go")
	orig, err := os.ReadFile(target)
	require.NoError(b, err)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		b.StopTimer()
		require.NoError(b, os.WriteFile(target, fmt.Appendf(append([]byte(nil), orig...), "\n// edit %d\n", i), 0o644))
		src.reads.Store(0)
		b.StartTimer()
		st, err := idx.Refresh(b.Context(), src)
		require.NoError(b, err)
		if st.Parsed != 1 || src.reads.Load() != 1 {
			b.Fatalf("refresh parsed %d files and read %d, want 1", st.Parsed, src.reads.Load())
		}
	}
	b.ReportMetric(float64(len(idx.Files())), "files")
}
