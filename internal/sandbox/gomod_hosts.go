package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// DefaultModuleHosts are the hosts whose modules the bot downloads for a
// sandboxed command's go.mod without being told (Policy.ModuleHosts nil):
// the code hosts and vanity domains most public Go modules live on. A
// module path's first element is its host; "*.domain" covers its
// subdomains. The sandbox's Egress hosts and the operator's GOPRIVATE and
// GONOPROXY patterns (CacheOptions.DownloadEnv) are allowed besides.
var DefaultModuleHosts = []string{
	"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitea.com", "git.sr.ht",
	"golang.org", "google.golang.org", "cloud.google.com", "go.googlesource.com",
	"gopkg.in", "go.uber.org", "go.opentelemetry.io", "go.etcd.io", "go.mongodb.org",
	"k8s.io", "sigs.k8s.io", "honnef.co", "mvdan.cc", "modernc.org", "gotest.tools",
	"gonum.org", "gocloud.dev", "filippo.io", "rsc.io", "go.yaml.in", "buf.build", "connectrpc.com",
	"dario.cat", "cuelang.org", "cel.dev", "go.temporal.io", "tailscale.com", "golang.zx2c4.com",
	"lukechampine.com", "nhooyr.io", "zombiezen.com", "go.starlark.net", "go.lsp.dev",
}

// ModuleHostError refuses a module download before the go command runs:
// a go.mod (the sandboxed command may have written it) names a module on
// a host the allowlist does not cover, so asking for it would send data
// of the command's choosing (the path) to that host or to the proxy.
type ModuleHostError struct {
	Module, Host string
}

func (e *ModuleHostError) Error() string {
	return fmt.Sprintf("module %s is not downloaded: its host %s is not on the bot's module allowlist "+
		"(the modules the repository's committed go.mod and go.sum name, the public module hosts, "+
		"the sandbox's egress hosts and the operator's GOPRIVATE)", e.Module, e.Host)
}

// moduleHosts is the allowlist of a policy's downloads.
func (p Policy) moduleHosts() []string {
	hosts := p.ModuleHosts
	if hosts == nil {
		hosts = DefaultModuleHosts
	}
	hosts = slices.Clone(hosts)
	if p.Egress != nil {
		for _, h := range p.Egress.Hosts {
			if e, ok := parseEntry(h); ok && !e.ip.IsValid() && e.host != "*" {
				hosts = append(hosts, e.host)
			}
		}
	}
	return hosts
}

// checkModuleHosts parses dir's go.mod (and the go.mod of each local
// replacement, whose requirements join the module graph) and refuses the
// first required or replacing module whose host hosts do not cover and
// the operator's private patterns do not match.
func (c *Caches) checkModuleHosts(dir string, data []byte, hosts, trusted []string) error {
	// Parse, not ParseLax: ParseLax skips replace lines.
	f, err := modfile.Parse(filepath.Join(dir, "go.mod"), data, nil)
	if err != nil {
		return &DownloadError{Msg: "go.mod: " + err.Error()}
	}
	paths := make([]module.Version, 0, len(f.Require)+len(f.Replace))
	for _, r := range f.Require {
		paths = append(paths, r.Mod)
	}
	for _, r := range f.Replace {
		if r.New.Version != "" {
			paths = append(paths, r.New)
			continue
		}
		local := r.New.Path
		if !filepath.IsAbs(local) {
			local = filepath.Join(dir, local)
		}
		if sub, err := os.ReadFile(filepath.Join(local, "go.mod")); err == nil {
			if g, err := modfile.ParseLax(local, sub, nil); err == nil {
				for _, r := range g.Require {
					paths = append(paths, r.Mod)
				}
			}
		}
	}
	private := c.privatePatterns()
	for _, m := range paths {
		if module.MatchPrefixPatterns(private, m.Path) || slices.Contains(trusted, m.Path+"@"+m.Version) {
			continue
		}
		host, _, _ := strings.Cut(m.Path, "/")
		if !hostCovered(hosts, strings.ToLower(host)) {
			return &ModuleHostError{Module: m.Path + "@" + m.Version, Host: host}
		}
	}
	return nil
}

// hostCovered reports whether an entry of hosts ("name" or "*.domain")
// covers host.
func hostCovered(hosts []string, host string) bool {
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
			return true
		}
	}
	return false
}

// privatePatterns are the operator's GOPRIVATE and GONOPROXY patterns.
func (c *Caches) privatePatterns() string {
	var pats []string
	for _, kv := range c.opts.DownloadEnv {
		if k, v, _ := strings.Cut(kv, "="); (k == "GOPRIVATE" || k == "GONOPROXY") && v != "" {
			pats = append(pats, v)
		}
	}
	return strings.Join(pats, ",")
}

// DownloadModulesAllowed is DownloadModules for modules on hosts, and the
// modules trusted names (Policy.TrustedModules: what the repository itself
// committed), alone: every module dir's go.mod requires or replaces with
// (a go.mod the sandboxed command may have written) is checked first, and
// a *ModuleHostError names the first one outside; nothing is requested
// then.
func (c *Caches) DownloadModulesAllowed(ctx context.Context, dir string, hosts, trusted []string) (func(), error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return func() {}, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err == nil {
		return func() {}, nil
	}
	if err := c.checkModuleHosts(dir, data, hosts, trusted); err != nil {
		return func() {}, err
	}
	return c.downloadModules(ctx, dir)
}

// CommittedModules are the module versions ("path@version") a
// repository's own go.mod and go.sum name (the files' bytes as the bot
// read them from git, never from a tree a command ran in; either may be
// nil): the modules Policy.TrustedModules lets the bot download whatever
// their host. Asking for a version the repository already depends on
// sends nothing of a command's choosing; a module or version a change adds
// (a path or a pseudo-version can carry data) must be on the allowlist.
func CommittedModules(goMod, goSum []byte) []string {
	seen := map[string]bool{}
	if f, err := modfile.ParseLax("go.mod", goMod, nil); err == nil && goMod != nil {
		for _, r := range f.Require {
			seen[r.Mod.Path+"@"+r.Mod.Version] = true
		}
		for _, r := range f.Replace {
			if r.New.Version != "" {
				seen[r.New.Path+"@"+r.New.Version] = true
			}
		}
	}
	for _, line := range strings.Split(string(goSum), "\n") {
		if f := strings.Fields(line); len(f) == 3 && module.CheckPath(f[0]) == nil {
			seen[f[0]+"@"+strings.TrimSuffix(f[1], "/go.mod")] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
