package summaries

import "context"

// without is a Source that leaves out some files: the issue file handed to
// a command, or the command's own database, when they lie inside the
// checkout being indexed.
type without struct {
	Source
	skip map[string]bool
}

// Without returns src without the repo-relative slash paths given (empty
// ones, for files outside the checkout, are ignored); src itself when there
// is nothing to leave out.
func Without(src Source, paths ...string) Source {
	skip := map[string]bool{}
	for _, p := range paths {
		if p != "" {
			skip[p] = true
		}
	}
	if len(skip) == 0 {
		return src
	}
	return without{Source: src, skip: skip}
}

// Files lists the source's files without the skipped ones.
func (s without) Files(ctx context.Context) ([]string, error) {
	files, err := s.Source.Files(ctx)
	if err != nil {
		return nil, err
	}
	out := files[:0:0]
	for _, f := range files {
		if !s.skip[f] {
			out = append(out, f)
		}
	}
	return out, nil
}
