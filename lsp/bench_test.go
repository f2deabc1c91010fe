package lsp

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// BenchmarkServerStart measures, per language server, the time from a new
// Session to the first file's diagnostics (start, initialize, open, settle)
// and the peak resident memory of the processes it started (the server and
// its helpers: gopls, tsserver under typescript-language-server, node for
// pyright), summed over the process tree. A measurement, not a gate:
//
//	go test ./lsp -run '^$' -bench ServerStart -benchtime 3x
func BenchmarkServerStart(b *testing.B) {
	cases := []struct {
		bin, path string
		files     map[string]string
	}{
		{"gopls", "calc.go", map[string]string{
			"go.mod":  "module example.com/m\n\ngo 1.22\n",
			"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		}},
		{"typescript-language-server", "src/calc.ts", map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}` + "\n",
			"src/calc.ts":   "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
		}},
		{"pyright-langserver", "calc.py", map[string]string{
			"calc.py": "def add(a, b):\n    return a + b\n",
		}},
	}
	for _, c := range cases {
		b.Run(c.bin, func(b *testing.B) {
			if _, err := exec.LookPath(c.bin); err != nil {
				b.Skipf("%s not installed", c.bin)
			}
			var peak int64
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				for p, s := range c.files {
					full := filepath.Join(dir, filepath.FromSlash(p))
					_ = os.MkdirAll(filepath.Dir(full), 0o755)
					if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				opts := Options{Wait: 60 * time.Second, Start: 60 * time.Second}
				if sandbox.Check() == nil {
					opts.Sandbox = &sandbox.Policy{}
				}
				b.StartTimer()
				s := NewSession(dir, opts)
				if _, ok := s.Errors(b.Context(), c.path); !ok {
					b.Fatalf("%s gave no diagnostics", c.bin)
				}
				b.StopTimer()
				peak = max(peak, treePeakRSS(os.Getpid()))
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

// treePeakRSS sums VmHWM (peak resident set) of every process below pid.
func treePeakRSS(pid int) int64 {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := ppidOf(p); ok {
			parent[p] = pp
		}
	}
	var sum int64
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				sum += hwmOf(p)
				break
			}
		}
	}
	return sum
}

func ppidOf(pid int) (int, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may hold spaces: read after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

func hwmOf(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
