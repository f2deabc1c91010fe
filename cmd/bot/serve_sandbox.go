package main

import (
	"os"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// sandboxPolicy is the bubblewrap policy of the coder's go build/vet and
// check commands under `bot serve`: besides the sandbox's own rule (only the
// worktree, the go caches and the system's programs visible), the bot's key,
// API key and config files are masked even if they lie under a visible path.
func sandboxPolicy(cfg *config.Server) sandbox.Policy {
	return sandbox.Policy{Hide: []string{cfg.PrivateKeyFile, cfg.Model.APIKeyFile, os.Getenv(config.FileVar)}}
}
