package main

import (
	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
)

// serveCoder is the coder of `bot serve`: its go build/vet and check
// commands run in the sandbox with the App's secrets masked, and a
// repository's run_commands runs only when the server allows it.
func serveCoder(cfg *config.Server, ms *agents.Models) *agents.Coder {
	return &agents.Coder{Models: ms, Options: coder.Options{Sandbox: sandboxPolicy(cfg)}, AllowChecks: cfg.AllowCheckCommands}
}

// solveCoder is the coder of `bot solve`: the same construction, on the
// user's own checkout, where the repository's run_commands is the user's
// own choice to run.
func solveCoder() agents.Coder {
	return agents.Coder{AllowChecks: true}
}
