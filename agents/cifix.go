package agents

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// maxCIFiles bounds the files a CI fix round puts to the coder.
const maxCIFiles = 8

// evidencePath finds repository paths in CI evidence: "dir/file.go:12",
// "./file_test.go:3:5", annotation paths.
var evidencePath = regexp.MustCompile(`(?:^|[\s(\x60'"])\.?/?((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]+):\d+`)

// ciFiles are the files of a CI fix round: the pull request's changed
// files first, then the files the evidence points at that exist in the
// checkout ws (a test the change broke), at most maxCIFiles.
func ciFiles(ws *repo.Workspace, changed []string, evidence string) []string {
	out := slices.Clone(changed)
	for _, m := range evidencePath.FindAllStringSubmatch(evidence, -1) {
		p := path.Clean(m[1])
		if len(out) >= maxCIFiles {
			break
		}
		if strings.HasPrefix(p, "../") || slices.Contains(out, p) || work.CheckPath(p) != nil {
			continue
		}
		if st, err := ws.Root().Lstat(filepath.FromSlash(p)); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// planLines renders a plan's items for the CI fix prompt ("path: steps").
func planLines(p *work.Plan) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, it := range p.Items {
		var steps []string
		for _, s := range it.Steps {
			steps = append(steps, s.Text)
		}
		out = append(out, it.Path+": "+strings.Join(steps, "; "))
	}
	return out
}
