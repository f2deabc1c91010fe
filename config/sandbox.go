package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Bytes is a size setting: a number of bytes, or one with a unit (KiB,
// MiB, GiB, TiB; KB, MB, GB, TB as powers of ten), e.g. "20GiB".
type Bytes int64

// UnmarshalText reads a size (env parsing).
func (b *Bytes) UnmarshalText(text []byte) error {
	n, err := ParseSize(string(text))
	if err != nil {
		return err
	}
	*b = Bytes(n)
	return nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}}

// ParseSize reads "20GiB", "512 MiB", "1e9" style sizes; "0" is zero.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not a size (say 20GiB, 512MiB or a number of bytes)", s)
	}
	return int64(f * float64(mult)), nil
}

// Sandbox is the server's settings of the sandbox its checks, go build/vet
// and language servers run in (variables ISSUESMITH_SANDBOX_*, ...).
type Sandbox struct {
	// CacheDir holds the Go module cache (downloaded by the bot, read-only
	// in sandboxes) and one build cache per repository.
	CacheDir string `env:"CACHE_DIR"`
	// ModuleCacheBudget and BuildCacheBudget bound the module cache and
	// the repositories' build caches together; least recently used entries
	// go first; 0 is no bound.
	ModuleCacheBudget Bytes `env:"MODULE_CACHE_BUDGET" envDefault:"20GiB"`
	BuildCacheBudget  Bytes `env:"BUILD_CACHE_BUDGET" envDefault:"20GiB"`
	// MinFreeSpace is the free space a run needs on the data directory's
	// disk to start; /readyz warns below twice it; 0 is no check.
	MinFreeSpace Bytes `env:"MIN_FREE_SPACE" envDefault:"5GiB"`
	// EgressHosts is the ceiling of the hosts a repository's checks may
	// reach through the bot's proxy (comma-separated host, host:port,
	// *.domain or *); a repository names the ones it needs in its file.
	// Default none: checks have no network.
	EgressHosts []string `env:"EGRESS_HOSTS" envSeparator:","`
}

// CacheRoot is the caches' folder: CacheDir or <data dir>/sandbox-cache.
func (s *Server) CacheRoot() string {
	if s.Sandbox.CacheDir != "" {
		return s.Sandbox.CacheDir
	}
	return filepath.Join(s.DataDir, "sandbox-cache")
}
