package planner

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/work"
)

// orderPlan sorts items so every file comes after the files it depends on,
// keeping the model's order wherever dependencies allow (a stable
// topological sort). Unknown dependencies and cycles are errors the model
// can fix.
func orderPlan(p *work.Plan, deps map[string][]string) (*work.Plan, error) {
	idx := map[string]int{}
	for i, it := range p.Items {
		idx[it.Path] = i
	}
	for path, ds := range deps {
		for _, d := range ds {
			if _, ok := idx[d]; !ok {
				return nil, fmt.Errorf("%s depends on %s, which is not in the plan", path, d)
			}
			if d == path {
				return nil, fmt.Errorf("%s depends on itself", path)
			}
		}
	}
	done := make([]bool, len(p.Items))
	out := &work.Plan{}
	for len(out.Items) < len(p.Items) {
		progressed := false
		for i, it := range p.Items {
			if done[i] || !ready(deps[it.Path], idx, done) {
				continue
			}
			done[i], progressed = true, true
			out.Items = append(out.Items, it)
			break // restart from the top so earlier items keep priority
		}
		if !progressed {
			var left []string
			for i, it := range p.Items {
				if !done[i] {
					left = append(left, it.Path)
				}
			}
			return nil, fmt.Errorf("depends_on forms a cycle among %s", strings.Join(left, ", "))
		}
	}
	return out, nil
}

func ready(ds []string, idx map[string]int, done []bool) bool {
	for _, d := range ds {
		if !done[idx[d]] {
			return false
		}
	}
	return true
}
