package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// gitMetaArgs keep a working tree's git metadata out of a sandboxed
// command's reach: a .git folder or file at the tree's top (a user's own
// checkout under bot solve; a clone under bot replay) is bound read-only
// over itself at every place the tree is mounted (at), so nothing inside
// can plant a config, a hook or an object there for the bot's own git to
// read or run on the host (CVE-2024-32002, CVE-2022-24765, the
// core.fsmonitor advisories: git treats a repository's config as trusted
// code). A .git that is a symbolic link is refused: binding it would
// expose whatever it points at. The App's worktrees keep their git
// directory beside the tree (repo.Worktree), so there is none to mask.
func gitMetaArgs(tree string, at ...string) ([]string, error) {
	p := filepath.Join(tree, ".git")
	fi, err := os.Lstat(p)
	switch {
	case os.IsNotExist(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("sandbox: %w", err)
	case fi.Mode()&os.ModeSymlink != 0:
		return nil, fmt.Errorf("sandbox: %s is a symbolic link: refused (it would expose its target)", p)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("sandbox: %s is not a folder or a file: refused", p)
	}
	var args []string
	for _, dir := range at {
		args = append(args, "--ro-bind", p, filepath.Join(dir, ".git"))
	}
	return args, nil
}
