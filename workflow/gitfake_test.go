package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/workflow"
)

// seedRepo makes a bare repository with one commit on main holding files.
func seedRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	work := filepath.Join(root, "seed")
	git(t, root, "init", "-q", "--bare", "-b", "main", bare)
	git(t, root, "init", "-q", "-b", "main", work)
	for p, c := range files {
		require.NoError(t, os.WriteFile(filepath.Join(work, p), []byte(c), 0o644))
	}
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "-m", "seed")
	git(t, work, "push", "-q", bare, "main")
	return bare
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := runGit(context.Background(), dir, args...)
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return out
}

func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=issuesmith", "GIT_AUTHOR_EMAIL=bot@example.com",
		"GIT_COMMITTER_NAME=issuesmith", "GIT_COMMITTER_EMAIL=bot@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// cliGit is workflow.Git over the git command and a bare repository on
// disk: real clones, commits and pushes.
type cliGit struct{ bare string }

func (g cliGit) Checkout(ctx context.Context, r workflow.RepoRef, branch string) (workflow.Worktree, error) {
	dir, err := os.MkdirTemp("", "wt-")
	if err != nil {
		return nil, err
	}
	if out, err := runGit(ctx, "", "clone", "-q", "-b", r.Base, g.bare, dir); err != nil {
		return nil, fmt.Errorf("clone: %v: %s", err, out)
	}
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		return nil, err
	}
	wt := &cliWorktree{dir: dir, branch: branch, ws: ws}
	if branch == "" {
		return wt, nil
	}
	remote, _ := runGit(ctx, dir, "ls-remote", "--heads", "origin", branch)
	if remote != "" {
		_, err = runGit(ctx, dir, "checkout", "-q", branch)
	} else {
		_, err = runGit(ctx, dir, "checkout", "-q", "-b", branch)
	}
	return wt, err
}

type cliWorktree struct {
	dir, branch string
	ws          *repo.Workspace
}

func (w *cliWorktree) Workspace() *repo.Workspace { return w.ws }
func (w *cliWorktree) Close() error               { return errors.Join(w.ws.Close(), os.RemoveAll(w.dir)) }
func (w *cliWorktree) Commit(ctx context.Context, msg string, coAuthors ...string) (string, bool, error) {
	if len(coAuthors) > 0 {
		msg = strings.TrimRight(msg, "\n") + "\n"
		for _, login := range coAuthors {
			msg += "\nCo-authored-by: " + login + " <" + login + "@users.noreply.github.com>"
		}
	}
	if _, err := runGit(ctx, w.dir, "add", "-A"); err != nil {
		return "", false, err
	}
	changed := true
	if _, err := runGit(ctx, w.dir, "diff", "--cached", "--quiet"); err == nil {
		changed = false
	} else if out, err := runGit(ctx, w.dir, "commit", "-q", "-m", msg); err != nil {
		return "", false, fmt.Errorf("commit: %v: %s", err, out)
	}
	sha, err := runGit(ctx, w.dir, "rev-parse", "HEAD")
	return sha, changed, err
}
func (w *cliWorktree) Push(ctx context.Context) error {
	out, err := runGit(ctx, w.dir, "push", "-q", "origin", "HEAD:refs/heads/"+w.branch)
	if err != nil {
		return fmt.Errorf("push: %v: %s", err, out)
	}
	return nil
}
