package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
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
