package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/issuesmith/issuesmith/repo"
)

// ResolveRepo finds repository owner/name under dir: a git dir or checkout
// at owner__name.git, owner__name, owner+name/repo or owner/name. It
// returns the absolute path git can clone from.
func ResolveRepo(dir, name string) (string, error) {
	owner, repo, ok := strings.Cut(name, "/")
	if !ok || owner == "" || repo == "" || strings.ContainsAny(name, `\`) || strings.Contains(repo, "/") ||
		owner == ".." || repo == ".." || owner == "." || repo == "." {
		return "", fmt.Errorf("repo %q: want owner/name", name)
	}
	cands := []string{
		filepath.Join(dir, owner+"__"+repo+".git"),
		filepath.Join(dir, owner+"__"+repo),
		filepath.Join(dir, owner+"+"+repo, "repo"),
		filepath.Join(dir, owner, repo),
	}
	for _, c := range cands {
		if isGitDir(c) || isGitDir(filepath.Join(c, ".git")) {
			// Absolute: git clones it from the instance's own folder.
			return filepath.Abs(c)
		}
	}
	return "", fmt.Errorf("repo %s: not found under %s (looked for %s)", name, dir,
		strings.Join([]string{owner + "__" + repo + ".git", owner + "+" + repo + "/repo", owner + "/" + repo}, ", "))
}

func isGitDir(p string) bool {
	fi, err := os.Stat(filepath.Join(p, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	_, err = os.Stat(filepath.Join(p, "objects"))
	return err == nil
}

// git runs git in dir with the bot's host configuration (repo.GitEnv: no
// system or user config, no hooks, no fsmonitor, only the transports the
// bot uses) and returns stdout; the error carries stderr's first lines. A
// clone's own .git is read-only to the tests that run in it (the
// sandbox masks it), so its config is still the one this package wrote.
func git(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = repo.GitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return out, fmt.Errorf("git %s: %v: %s", args[0], err, msg)
	}
	return out, nil
}

// ErrNoCommit is wrapped when an instance's commit is not in its repository.
var ErrNoCommit = errors.New("commit not in the repository")

// Checkout makes a fresh clone of src at commit in dir (which must not
// exist): objects are borrowed from src (git clone --shared), nothing is
// written into src, and the clone has no remote left.
func Checkout(ctx context.Context, src, commit, dir string) error {
	if _, err := git(ctx, src, nil, "cat-file", "-e", commit+"^{commit}"); err != nil {
		return fmt.Errorf("base_commit %s: %w", short(commit), ErrNoCommit)
	}
	if _, err := git(ctx, filepath.Dir(dir), nil, "clone", "--quiet", "--shared", "--no-checkout", src, dir); err != nil {
		return err
	}
	if _, err := git(ctx, dir, nil, "checkout", "--quiet", "--detach", commit); err != nil {
		return err
	}
	if _, err := git(ctx, dir, nil, "remote", "remove", "origin"); err != nil {
		return err
	}
	_, err := git(ctx, dir, nil, "-c", "user.name=replay", "-c", "user.email=replay@localhost",
		"tag", "replay-base")
	return err
}

// Patches are the gold (code) and test patches of an instance: its own, or
// cut from `git diff base fix` by gold_files and test_files.
func Patches(ctx context.Context, src string, in *Instance) (gold, test string, err error) {
	if in.Patch != "" {
		return in.Patch, in.TestPatch, nil
	}
	if _, err := git(ctx, src, nil, "cat-file", "-e", in.FixCommit+"^{commit}"); err != nil {
		return "", "", fmt.Errorf("fix_commit %s: %w", short(in.FixCommit), ErrNoCommit)
	}
	diff := func(paths []string) (string, error) {
		if len(paths) == 0 {
			return "", nil
		}
		args := append([]string{"diff", "--binary", "--no-color", "--no-ext-diff", in.BaseCommit, in.FixCommit, "--"}, paths...)
		out, err := git(ctx, src, nil, args...)
		return string(out), err
	}
	goldFiles, testFiles := in.GoldFiles, in.TestFiles
	if len(goldFiles) == 0 && len(testFiles) == 0 {
		return "", "", errors.New("fix_commit needs gold_files or test_files to split the fix")
	}
	if gold, err = diff(goldFiles); err != nil {
		return "", "", err
	}
	test, err = diff(testFiles)
	return gold, test, err
}

// ApplyPatch applies a unified diff to the clone at dir (index untouched).
func ApplyPatch(ctx context.Context, dir, patch string) error {
	if strings.TrimSpace(patch) == "" {
		return nil
	}
	_, err := git(ctx, dir, []byte(patch), "apply", "--whitespace=nowarn", "-")
	return err
}

// PatchFiles are the paths a unified diff changes (b/ side, a/ for deletions).
func PatchFiles(patch string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(patch, "\n") {
		rest, ok := strings.CutPrefix(l, "diff --git a/")
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, " b/")
		if i < 0 {
			continue
		}
		p := rest[i+3:]
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Changed lists the files that differ from the base in the clone at dir,
// new untracked files included.
func Changed(ctx context.Context, dir string) ([]string, error) {
	if _, err := git(ctx, dir, nil, "add", "-A", "--", "."); err != nil {
		return nil, err
	}
	out, err := git(ctx, dir, nil, "diff", "--cached", "--name-only", "--no-renames", "replay-base")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			files = append(files, l)
		}
	}
	return files, nil
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
