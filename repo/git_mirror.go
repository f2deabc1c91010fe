package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// ensureMirror makes sure m.dir is a bare repository with its origin
// remote, whatever a crash left. A new mirror is built in a temporary
// directory beside it and renamed into place, so the mirror path holds
// either nothing or a repository with its remote; one that is incomplete
// anyway (HEAD but no origin, from a version that built it in place) is
// removed and built again: the next fetch fills it. The caller holds the
// mirror's lock.
func ensureMirror(m mirror) error {
	base := filepath.Base(m.dir)
	// Half-built mirrors of a process that died while making one.
	if stale, _ := filepath.Glob(filepath.Join(filepath.Dir(m.dir), base+".init-*")); len(stale) > 0 {
		for _, d := range stale {
			_ = os.RemoveAll(d)
		}
	}
	switch ok, err := mirrorComplete(m.dir); {
	case err != nil:
		return err
	case ok:
		return nil
	}
	if err := os.RemoveAll(m.dir); err != nil {
		return fmt.Errorf("remove incomplete mirror: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(m.dir), base+".init-*")
	if err != nil {
		return fmt.Errorf("make mirror: %w", err)
	}
	r, err := git.PlainInit(tmp, true)
	if err == nil {
		_, err = r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{m.url}, Fetch: fetchSpecs})
	}
	if err == nil {
		err = os.Rename(tmp, m.dir)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("make mirror: %w", err)
	}
	return nil
}

// mirrorComplete reports whether dir is a repository with an origin
// remote; a missing or unreadable one is not (and is rebuilt).
func mirrorComplete(dir string) (bool, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("open mirror: %w", err)
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		return false, nil
	}
	if _, err := r.Remote("origin"); err != nil {
		return false, nil
	}
	return true, nil
}

// maxTipsChecked bounds how many branch tips mirrorUnreadable reads when the
// remote named no default branch.
const maxTipsChecked = 100

// mirrorUnreadable says why the mirror at dir cannot serve a run ("" when
// it can or does not exist): a ref it cannot read, or a default-branch tip
// (every branch tip, without a default branch) whose commit or tree cannot
// be read. A process killed while git wrote objects or refs can leave such a
// mirror, and fetching again does not repair it: the fetch believes it has
// the objects its refs name (and the run then fails with "ref not found").
// The git CLI checks mirrors it manages (large ones); go-git the others.
func mirrorUnreadable(ctx context.Context, dir string, backend Backend) string {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return ""
	}
	if backend == BackendCLI {
		return mirrorUnreadableCLI(ctx, dir)
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		return "open: " + err.Error()
	}
	refs, err := r.References()
	if err != nil {
		return "list refs: " + err.Error()
	}
	var tips []plumbing.Hash
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), "refs/remotes/origin/") &&
			len(tips) < maxTipsChecked {
			tips = append(tips, ref.Hash())
		}
		return nil
	})
	if err != nil {
		return "read refs: " + err.Error()
	}
	if head, err := r.Reference("refs/remotes/origin/HEAD", true); err == nil {
		tips = []plumbing.Hash{head.Hash()}
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "default branch: " + err.Error()
	}
	for _, h := range tips {
		c, err := r.CommitObject(h)
		if err == nil {
			_, err = c.Tree()
		}
		if err != nil {
			return fmt.Sprintf("commit %s: %v", h.String()[:12], err)
		}
	}
	return ""
}

// mirrorUnreadableCLI is mirrorUnreadable through the git CLI: no ref git
// calls broken, and the default branch's commit and tree present.
func mirrorUnreadableCLI(ctx context.Context, dir string) string {
	res, err := runGit(ctx, dir, "", "for-each-ref", "--format=%(objectname)", "refs/remotes/origin/")
	if err != nil {
		return "list refs: " + err.Error()
	}
	if strings.Contains(res.stderr, "broken ref") {
		return "list refs: " + res.stderr
	}
	target, err := runGit(ctx, dir, "", "symbolic-ref", "-q", "refs/remotes/origin/HEAD")
	if err != nil || strings.TrimSpace(target.stdout) == "" {
		return "" // no default branch recorded: nothing more to check cheaply
	}
	ref := strings.TrimSpace(target.stdout)
	if _, err := runGit(ctx, dir, "", "cat-file", "-e", ref+"^{tree}"); err != nil {
		return "default branch " + ref + ": " + err.Error()
	}
	return ""
}
