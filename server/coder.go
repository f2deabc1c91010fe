package server

import (
	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/store"
)

// Coder is the coder of `bot serve`: its go build/vet and check commands
// run in the sandbox with the App's secrets masked, and a repository's
// run_commands runs only when the server allows it.
func Coder(cfg *config.Server, ms *agents.Models, caches *sandbox.Caches) *agents.Coder {
	p := SandboxPolicy(cfg)
	p.Caches = caches
	if len(cfg.Sandbox.EgressHosts) > 0 {
		p.Egress = &sandbox.Egress{Hosts: cfg.Sandbox.EgressHosts}
	}
	return &agents.Coder{Models: ms, Options: coder.Options{Sandbox: p}, AllowChecks: cfg.AllowCheckCommands}
}

// Caches opens the sandbox's caches of cfg (ISSUESMITH_CACHE_DIR and the
// budgets); the bot's module downloads use this process's GOPROXY, GOSUMDB
// and GOPRIVATE.
func Caches(cfg *config.Server) (*sandbox.Caches, error) {
	return sandbox.NewCaches(cfg.CacheRoot(), sandbox.CacheOptions{
		ModuleBudget: int64(cfg.Sandbox.ModuleCacheBudget), BuildBudget: int64(cfg.Sandbox.BuildCacheBudget),
		MinFree:     int64(cfg.Sandbox.MinFreeSpace),
		DownloadEnv: sandbox.HostGoEnv()})
}

// SandboxPolicy is the bubblewrap policy of the coder's go build/vet and
// check commands under `bot serve`: besides the sandbox's own rule (only the
// worktree, the go caches and the system's programs visible), the bot's key,
// API key and settings files (the one --config named too: cfg.File) and a
// SQLite database with its journal files are masked even if they lie under
// a visible path.
func SandboxPolicy(cfg *config.Server) sandbox.Policy {
	hide := []string{cfg.PrivateKeyFile, cfg.Model.APIKeyFile, cfg.File, cfg.GiteaTokenFile}
	if cfg.DatabaseURL != "" {
		hide = append(hide, store.FilesOf(cfg.DatabaseURL)...)
	}
	return sandbox.Policy{Hide: hide}
}
