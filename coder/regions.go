package coder

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/issuesmith/issuesmith/internal/fence"
)

// Bounds of the edited regions quoted back after an attempt.
const (
	regionContext  = 3  // unchanged lines shown around each change
	maxRegionLines = 80 // lines quoted per attempt, all files
)

// changedRegions renders, for each file an attempt changed, the current text
// of the lines around every change, numbered as the file is now. The model
// copies its next SEARCH from this text instead of from the prompt's stale
// copy.
func (s *session) changedRegions(paths []string, snaps map[string]snapshot) (string, error) {
	var b strings.Builder
	budget := maxRegionLines
	for _, p := range paths {
		before, ok := snaps[cleanRel(p)]
		if !ok {
			continue
		}
		after, exists, err := s.r.tree.read(cleanRel(p))
		if err != nil {
			return "", err
		}
		if !exists || budget <= 0 {
			continue
		}
		lines := splitKeep(string(after))
		rs := regionsOf(string(before.data), string(after), len(lines))
		rs = capRegions(rs, budget)
		if len(rs) == 0 {
			continue
		}
		var body strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&body, "[lines %d–%d]\n", r.start, r.end)
			for _, l := range lines[r.start-1 : r.end] {
				body.WriteString(l)
			}
			if !strings.HasSuffix(body.String(), "\n") {
				body.WriteByte('\n')
			}
			budget -= r.end - r.start + 1
		}
		fmt.Fprintf(&b, "Current text of %s around your changes (copy any further SEARCH from here):\n%s\n", p, fence.Wrap(body.String(), ""))
	}
	return b.String(), nil
}

// regionsOf returns the line ranges of after (1-based, inclusive, merged)
// that differ from before, widened by regionContext lines.
func regionsOf(before, after string, n int) []region {
	var rs []region
	delta := 0 // bytes added so far: an edit's offset in after
	for _, e := range udiff.Strings(before, after) {
		start := e.Start + delta
		end := start + len(e.New)
		delta += len(e.New) - (e.End - e.Start)
		first := strings.Count(after[:start], "\n") + 1
		last := first + strings.Count(after[start:end], "\n")
		if end > start && strings.HasSuffix(after[start:end], "\n") {
			last--
		}
		rs = append(rs, region{max(first-regionContext, 1), min(max(last, first)+regionContext, n)})
	}
	return mergeRegions(rs, n)
}
