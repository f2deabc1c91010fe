package replay

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
)

// TestReplayHostileTests: an instance's tests run by `bot replay` (under the
// sandbox) cannot plant configuration or hooks in the clone's .git for
// replay's own host-side git (Changed's `git add -A`, the verdicts' tree id)
// to run, and cannot reach another repository's caches: each row is a
// hostile test command through TestRunner.Run, then Changed, as a replay
// instance goes. Before, the clone's .git was writable in the sandbox (the
// fsmonitor ran on the host at Changed) and every clone shared the cache
// key "local" (its origin is removed).
func TestReplayHostileTests(t *testing.T) {
	sandboxtest.Need(t)
	t.Parallel()
	ctx := t.Context()
	marker := t.TempDir()
	src := t.TempDir()
	gitT := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	gitT(src, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644))
	gitT(src, "add", "-A")
	gitT(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	base := gitT(src, "rev-parse", "HEAD")[:40]
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	require.NoError(t, err)
	runner, _ := NewTestRunner(ctx, time.Minute, nil, caches)

	hook := fmt.Sprintf("#!/bin/sh\ntouch %s/ran\n", marker)
	rows := []struct{ name, cite, cmd string }{
		{"core.fsmonitor in the clone's config", "CVE-2022-24765",
			fmt.Sprintf(`printf '%%s' %q > fsm.sh; chmod +x fsm.sh; printf '[core]\n\tfsmonitor = %%s/fsm.sh\n' "$PWD" >> .git/config; echo x > b.txt`, hook)},
		{"hooks in the clone's .git", "CVE-2024-32002",
			fmt.Sprintf(`for h in pre-commit post-index-change reference-transaction; do printf '%%s' %q > .git/hooks/$h; chmod +x .git/hooks/$h; done; echo x > b.txt`, hook)},
		{"the clone's .git replaced", "CVE-2024-32002",
			fmt.Sprintf(`mv .git .git.old || rm -rf .git; mkdir -p .git/hooks; printf '%%s' %q > .git/hooks/pre-commit; echo x > b.txt`, hook)},
		{"poisoning the shared cache", "GitHub Actions cache poisoning (Adnan Khan, 2024)",
			`mkdir -p "$XDG_CACHE_HOME" "$GOCACHE" && echo poison > "$XDG_CACHE_HOME/poison" && echo poison > "$GOCACHE/poison"; echo x > b.txt`},
	}
	for i, row := range rows {
		dir := filepath.Join(t.TempDir(), "clone")
		require.NoError(t, Checkout(ctx, src, base, dir), row.name)
		cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
		require.NoError(t, err)
		in := &Instance{ID: fmt.Sprintf("hostile-%d", i), Repo: "attacker/app", TestCmd: row.cmd}
		run := runner.Run(ctx, dir, in)
		changed, err := Changed(ctx, dir)
		require.NoError(t, err, "%s: %s", row.name, run.Output)
		require.Equal(t, []string{"b.txt"}, filterOut(changed, "fsm.sh"), row.name)
		after, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
		require.NoError(t, err)
		require.Equal(t, string(cfg), string(after), "%s (%s): the clone's git config changed", row.name, row.cite)
		ran, _ := os.ReadDir(marker)
		require.Empty(t, ran, "%s (%s): hostile code ran on the host", row.name, row.cite)
	}

	// Another repository's instance never sees the attacker's entries; an
	// instance of the same repository keeps its own.
	victim := filepath.Join(t.TempDir(), "clone")
	require.NoError(t, Checkout(ctx, src, base, victim))
	run := runner.Run(ctx, victim, &Instance{ID: "victim", Repo: "victim/app",
		TestCmd: `find "$XDG_CACHE_HOME" "$GOCACHE" -name poison 2>/dev/null; echo done`})
	require.Equal(t, "done\n", string(run.Output))
	require.NotEqual(t, RepoKey(&Instance{Repo: "victim/app"}), RepoKey(&Instance{Repo: "attacker/app"}))
}

func filterOut(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}
