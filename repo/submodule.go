package repo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/config"
)

// ErrSubmodule reports a path that is, or lies in, a git submodule: another
// repository pinned at a commit (a gitlink), whose folder is empty in a
// fresh clone. The bot cannot read or change it; a model that names one is
// told so (IsModelError).
var ErrSubmodule = errors.New("the bot cannot read or change a git submodule")

// submoduleListTimeout bounds the one `git ls-files` a Workspace runs to
// find its submodules.
const submoduleListTimeout = time.Minute

// Submodules lists the checkout's git submodules as sorted repo-relative
// slash paths: the gitlinks (mode 160000) in git's index and the paths
// .gitmodules names. They are found once per Workspace (a run does not add
// or remove submodules); a folder git cannot read contributes its
// .gitmodules only.
func (w *Workspace) Submodules() []string {
	w.subOnce.Do(func() {
		w.subs = w.findSubmodules()
		w.subSet = make(map[string]bool, len(w.subs))
		for _, s := range w.subs {
			w.subSet[s] = true
		}
	})
	return w.subs
}

// isSubmodule reports whether the clean relative path rel is a submodule's
// folder.
func (w *Workspace) isSubmodule(rel string) bool {
	w.Submodules()
	return w.subSet[rel]
}

// InSubmodule returns the submodule the repo-relative path p is or lies
// under, or "" when it is in none (or cannot be cleaned).
func (w *Workspace) InSubmodule(p string) string {
	rel, err := Clean(p)
	if err != nil || rel == "." {
		return ""
	}
	for _, s := range w.Submodules() {
		if rel == s || strings.HasPrefix(rel, s+"/") {
			return s
		}
	}
	return ""
}

// SubmoduleError is the ErrSubmodule error for rel, which is the submodule
// sub or lies in it: what the path is and why the bot leaves it alone.
func SubmoduleError(rel, sub string) error {
	if rel == sub {
		return fmt.Errorf("%q is a git submodule (a pointer to a commit of another repository), "+
			"not a folder of this repository: %w", rel, ErrSubmodule)
	}
	return fmt.Errorf("%q lies in the git submodule %q (another repository, pinned at a commit): %w",
		rel, sub, ErrSubmodule)
}

// checkSubmodule is SubmoduleError for a clean path in a submodule, else nil.
func (w *Workspace) checkSubmodule(rel string) error {
	if sub := w.InSubmodule(rel); sub != "" {
		return SubmoduleError(rel, sub)
	}
	return nil
}

func (w *Workspace) findSubmodules() []string {
	seen := map[string]bool{}
	if data, err := w.root.ReadFile(".gitmodules"); err == nil {
		mods := gitconfig.NewModules()
		if mods.Unmarshal(data) == nil {
			for _, m := range mods.Submodules {
				if m.Validate() == nil {
					seen[m.Path] = true
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), submoduleListTimeout)
	defer cancel()
	if res, err := w.git().run(ctx, "ls-files", "--stage", "-z"); err == nil {
		for _, rec := range strings.Split(res.stdout, "\x00") {
			// "160000 <object> <stage>\t<path>"
			if meta, p, ok := strings.Cut(rec, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
				seen[p] = true
			}
		}
	}
	var out []string
	for p := range seen {
		if c, err := Clean(p); err == nil && c != "." {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
