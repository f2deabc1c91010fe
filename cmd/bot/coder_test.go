package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/server"
)

// bot serve and bot solve build the coder's options through the same
// function: for one repository configuration (and a server that allows
// check commands) they are equal, but for the sandbox's masked files,
// which only the App has.
func TestServeAndSolveCodeWithTheSameOptions(t *testing.T) {
	t.Parallel()
	rc, err := config.ParseRepo([]byte("version: 1\nrun_commands: true\nblocked_paths: [\"deploy/**\"]\n" +
		"checks:\n  - {name: unit, run: go test ./...}\nroles:\n  coder: {max_tokens: 1000, timeout: 10m}\n"))
	require.NoError(t, err)
	serve := server.Coder(&config.Server{AllowCheckCommands: true, PrivateKeyFile: "/etc/issuesmith/key.pem"}, nil, nil).OptionsFor(rc)
	require.NotEmpty(t, serve.Sandbox.Hide, "the App's key is masked")
	solve := solveCoder()
	got := solve.OptionsFor(rc)
	serve.Sandbox = got.Sandbox
	require.Equal(t, serve, got)
	require.Equal(t, coder.Options{Blocked: []string{"deploy/**"}, RunCommands: true, CheckCommands: []string{"go test ./..."},
		MaxTokens: 1000, MaxWall: 10 * 60e9, MaxCost: 2, MaxSteps: 30,
		Sandbox: sandbox.Policy{Repo: solveCacheKey}}, // "" outside the tests (solve_code_test.go sets it)
		got, "the coder role's cost and step budgets (defaults) reach the coder")
}
