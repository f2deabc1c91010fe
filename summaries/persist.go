package summaries

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"time"
)

// snapshotVersion changes whenever what a snapshot holds or how files are
// parsed changes; a snapshot of another version is ignored.
const snapshotVersion = 2

// racyWindow: a file modified this close before the snapshot was written
// may have changed again within the same mtime tick, so its entry is not
// trusted (git's "racy clean" rule).
const racyWindow = 2 * time.Second

type snapshot struct {
	Version int
	Saved   time.Time
	Files   []snapshotFile
}

type snapshotFile struct {
	Path      string
	Blob      string
	Size      int64
	ModTime   time.Time
	Outline   *Outline
	Summary   string
	FromModel bool
	Imports   []importRef
	Terms     map[string]int32
	Length    int
	Symbols   []string
	Doc       string
	GoModule  string
	Generated bool
}

// Save writes what the index knows about every file (outlines, imports,
// terms, summaries, sizes and modification times) so that Load can start
// from it and parse only the files changed since.
func (ix *Index) Save(w io.Writer) error {
	ix.mu.RLock()
	s := snapshot{Version: snapshotVersion, Saved: time.Now(), Files: make([]snapshotFile, 0, len(ix.paths))}
	for _, p := range ix.paths {
		f := ix.files[p]
		s.Files = append(s.Files, snapshotFile{Path: f.Path, Blob: f.Blob, Size: f.Size, ModTime: f.modTime,
			Outline: f.Outline, Summary: f.Summary, FromModel: f.FromModel, Imports: f.imports, Terms: f.terms,
			Length: f.length, Symbols: f.symbols, Doc: f.doc, GoModule: f.goModule, Generated: f.generated})
	}
	ix.mu.RUnlock()
	bw := bufio.NewWriter(w)
	if err := gob.NewEncoder(bw).Encode(&s); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}

// Load builds an index of src starting from a snapshot that Save wrote:
// files whose size and modification time match the snapshot (and were not
// modified just before it was taken) are not read again; new and changed
// files are parsed, removed ones dropped, exactly as Refresh does. A
// snapshot that cannot be decoded or has another version is ignored (a full
// Build); reused reports whether it was used.
func Load(ctx context.Context, src Source, r io.Reader, opts Options) (ix *Index, reused bool, err error) {
	old := map[string]*FileInfo{}
	var s snapshot
	if r != nil && gob.NewDecoder(bufio.NewReader(r)).Decode(&s) == nil && s.Version == snapshotVersion {
		reused = true
		for _, sf := range s.Files {
			if !sf.ModTime.Before(s.Saved.Add(-racyWindow)) {
				continue
			}
			old[sf.Path] = &FileInfo{Path: sf.Path, Blob: sf.Blob, Size: sf.Size, modTime: sf.ModTime,
				Outline: sf.Outline, Summary: sf.Summary, FromModel: sf.FromModel, imports: sf.Imports,
				terms: sf.Terms, length: sf.Length, symbols: sf.Symbols, doc: sf.Doc, goModule: sf.GoModule,
				generated: sf.Generated}
		}
	}
	ix = &Index{opts: withDefaults(opts), files: old}
	if _, err := ix.refresh(ctx, src); err != nil {
		return nil, false, err
	}
	return ix, reused, nil
}
