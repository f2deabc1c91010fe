package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
)

// modEntry is one module version in the module cache.
type modEntry struct {
	Dir   string    `json:"dir,omitempty"` // extracted tree
	Files []string  `json:"files"`         // cache/download files (.zip, .ziphash, .info, .mod)
	Size  int64     `json:"size,omitempty"`
	Used  time.Time `json:"used"`
}

// indexPath is where the module index is kept.
func (c *Caches) indexPath() string { return filepath.Join(c.root, "modules.json") }

func (c *Caches) loadIndex() error {
	c.index = map[string]*modEntry{}
	data, err := os.ReadFile(c.indexPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox caches: %w", err)
	}
	if err := json.Unmarshal(data, &c.index); err != nil {
		// A torn index only loses the use times: start afresh.
		c.index = map[string]*modEntry{}
	}
	return nil
}

// saveIndex writes the index; the caller holds c.mu.
func (c *Caches) saveIndex() error {
	data, err := json.Marshal(c.index)
	if err != nil {
		return err
	}
	tmp := c.indexPath() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.indexPath())
}

// downloadVars are the go tool variables a download takes from
// DownloadEnv; the others (GONOSUMDB, GONOSUMCHECK, GOINSECURE, GOFLAGS,
// GOWORK, ...) are not passed.
var downloadVars = map[string]bool{"GOPROXY": true, "GOSUMDB": true, "GOPRIVATE": true, "GONOPROXY": true,
	"GOVCS": true, "PATH": true, "HOME": true, "GOROOT": true}

// DownloadModules downloads the modules the Go module at dir needs into
// the module cache, outside the sandbox: `go mod download` (which runs no
// module code) with GOTOOLCHAIN=local, GOFLAGS=-mod=readonly, GOWORK=off,
// the operator's proxy and checksum database, each module checked against
// dir's go.sum and the database. Only modules on DefaultModuleHosts (and
// the operator's GOPRIVATE) are asked for: see DownloadModulesAllowed. It
// returns the module keys the caller must keep leased (release them with
// the returned func). A folder without go.mod, or with vendor/modules.txt,
// needs nothing.
func (c *Caches) DownloadModules(ctx context.Context, dir string) (release func(), err error) {
	return c.DownloadModulesAllowed(ctx, dir, DefaultModuleHosts, nil)
}

// downloadModules is DownloadModules once the go.mod is checked.
func (c *Caches) downloadModules(ctx context.Context, dir string) (release func(), err error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return func() {}, nil
	}
	gosum, _ := os.ReadFile(filepath.Join(dir, "go.sum"))
	h := sha256.New()
	h.Write(gomod)
	h.Write([]byte{0})
	h.Write(gosum)
	digest := hex.EncodeToString(h.Sum(nil))

	c.mu.Lock()
	keys, ok := c.downloaded[digest]
	c.mu.Unlock()
	if !ok || !c.present(keys) {
		if keys, err = c.download(ctx, dir); err != nil {
			return func() {}, err
		}
		c.mu.Lock()
		c.downloaded[digest] = keys
		c.mu.Unlock()
	}
	c.touch(keys)
	leased := make([]string, len(keys))
	for i, k := range keys {
		leased[i] = "mod:" + k
	}
	return c.lease(leased), nil
}

// present reports whether every module of keys is still in the cache.
func (c *Caches) present(keys []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		e := c.index[k]
		if e == nil {
			return false
		}
		if e.Dir != "" {
			if _, err := os.Stat(e.Dir); err != nil {
				return false
			}
		}
	}
	return true
}

// touch stamps the modules' last use and saves the index.
func (c *Caches) touch(keys []string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if e := c.index[k]; e != nil {
			e.Used = now
		}
	}
	_ = c.saveIndex()
}

// goModule is one line of `go mod download -json`.
type goModule struct {
	Path, Version, Error  string
	Info, GoMod, Zip, Dir string
}

// download runs `go mod download -json` in dir and records each module.
func (c *Caches) download(ctx context.Context, dir string) ([]string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, nil // no go tool: the go commands inside fail by themselves
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "mod", "download", "-json")
	cmd.Dir = dir
	cmd.Env = c.downloadEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var keys, failed []string
	dec := json.NewDecoder(bytes.NewReader(out))
	now := time.Now()
	c.mu.Lock()
	for {
		var m goModule
		if err := dec.Decode(&m); err != nil {
			if !errors.Is(err, io.EOF) && runErr == nil {
				runErr = fmt.Errorf("read go mod download -json: %w", err)
			}
			break
		}
		if m.Error != "" {
			failed = append(failed, m.Path+"@"+m.Version+": "+m.Error)
			continue
		}
		key := m.Path + "@" + m.Version
		e := &modEntry{Dir: m.Dir, Used: now}
		for _, f := range []string{m.Info, m.GoMod, m.Zip} {
			if f != "" {
				e.Files = append(e.Files, f)
			}
		}
		if m.Zip != "" {
			e.Files = append(e.Files, strings.TrimSuffix(m.Zip, ".zip")+".ziphash")
		}
		if old := c.index[key]; old != nil {
			e.Size = old.Size
		}
		c.index[key] = e
		keys = append(keys, key)
	}
	_ = c.saveIndex()
	c.mu.Unlock()
	if runErr != nil || len(failed) > 0 {
		msg := strings.Join(failed, "; ")
		if msg == "" {
			msg = strings.TrimSpace(stderr.String())
		}
		return nil, &DownloadError{Msg: clipString(msg, 2000)}
	}
	return keys, nil
}

// DownloadError is a failed module download before a sandboxed command:
// a missing or mismatching go.sum line, a module the proxy lacks. It is
// worth showing the model (it can fix go.mod/go.sum).
type DownloadError struct{ Msg string }

func (e *DownloadError) Error() string { return "go mod download (outside the sandbox): " + e.Msg }

// downloadEnv is the scrubbed environment with the operator's download
// settings and the fixed ones.
func (c *Caches) downloadEnv() []string {
	var env []string
	for _, kv := range procenv.Scrubbed() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "GO") && k != "CGO_ENABLED" {
			env = append(env, kv)
		}
	}
	for _, kv := range c.opts.DownloadEnv {
		if k, _, _ := strings.Cut(kv, "="); downloadVars[k] {
			env = append(env, kv)
		}
	}
	return append(env, "GOMODCACHE="+c.ModCache(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly",
		"GOWORK=off", "GONOSUMDB=", "GONOSUMCHECK=", "GOINSECURE=", "GOENV=off")
}

// HostGoEnv is the process's GOPROXY, GOSUMDB, GOPRIVATE, GONOPROXY and
// GOVCS: the default CacheOptions.DownloadEnv of `bot serve`.
func HostGoEnv() []string {
	var env []string
	for _, kv := range procenv.Scrubbed() {
		if k, _, _ := strings.Cut(kv, "="); downloadVars[k] && strings.HasPrefix(k, "GO") {
			env = append(env, kv)
		}
	}
	return env
}

// clipString cuts s to n bytes.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " …"
}
