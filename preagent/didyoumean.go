package preagent

import (
	"io/fs"
	"path"
	"strings"
)

// Bounds of the "did you mean" search over the repository's paths.
const (
	maxListedPaths = 50000
	maxSuggestions = 3
)

// skipDirs are never listed for suggestions.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".venv": true}

// suggest returns up to maxSuggestions existing paths the model may have
// meant by p, a path that does not exist: the same file name elsewhere
// (any case), else paths ending with p's last two parts, else files of
// p's folder whose name differs only in case or extension.
func (s *session) suggest(p string) []string {
	if p == "" {
		return nil
	}
	if s.paths == nil {
		s.paths = []string{}
		_ = fs.WalkDir(s.e.ws.Root().FS(), ".", func(q string, d fs.DirEntry, err error) error {
			if err != nil || len(s.paths) >= maxListedPaths {
				return fs.SkipDir
			}
			if d.IsDir() && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			if d.IsDir() && q != "." && s.e.ws.InSubmodule(q) == q {
				return fs.SkipDir // another repository: never a path to suggest
			}
			if q != "." {
				s.paths = append(s.paths, q)
			}
			return nil
		})
	}
	base := strings.ToLower(path.Base(p))
	stem := strings.TrimSuffix(base, path.Ext(base))
	tail := strings.ToLower(lastParts(p, 2))
	var same, ends, near []string
	for _, q := range s.paths {
		lq := strings.ToLower(q)
		qb := path.Base(lq)
		switch {
		case qb == base:
			same = append(same, q)
		case strings.HasSuffix(lq, "/"+tail):
			ends = append(ends, q)
		case path.Dir(lq) == strings.ToLower(path.Dir(p)) && strings.TrimSuffix(qb, path.Ext(qb)) == stem:
			near = append(near, q)
		}
	}
	out := append(append(same, ends...), near...)
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}

// lastParts returns the last n slash-separated parts of p.
func lastParts(p string, n int) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.Join(parts, "/")
}
