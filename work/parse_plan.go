package work

import (
	"strings"
)

// ParsePlan reads a plan comment, as rendered by RenderPlan and then edited by
// people, back into a Plan and its state. Files ("### n. action `path`"
// headings, numbering optional and ignored) and steps ("- [ ] text" or plain
// "- text" / "1. text") may be added, removed, reordered and reworded; the
// order in the comment is the order of work. A plain line right under a file
// heading is its reason; an indented line continues the step above it. A line
// that cannot be read yields a *ParseError naming it.
func ParsePlan(body string) (*Plan, PlanState, error) {
	var st PlanState
	if err := checkKind(body, KindPlan); err != nil {
		return nil, st, err
	}
	p := &Plan{}
	var cur *Item
	for _, l := range contentLines(body) {
		trim := strings.TrimSpace(l.text)
		if h := headingRe.FindStringSubmatch(trim); h != nil {
			if len(h[1]) <= 2 {
				continue // the "## Plan" title
			}
			f, err := parseFileRef(l, h[2])
			if err != nil {
				return nil, st, err
			}
			for _, it := range p.Items {
				if it.Path == f.Path {
					return nil, st, &ParseError{Line: l.n, Text: l.text, Msg: f.Path + " has two sections; merge their steps under one heading"}
				}
			}
			p.Items = append(p.Items, Item{Path: f.Path, Action: f.Action, Reason: f.Reason})
			cur = &p.Items[len(p.Items)-1]
			continue
		}
		bm := bulletRe.FindStringSubmatch(l.text)
		if cur == nil {
			if bm != nil && strings.Contains(strings.ToLower(bm[2]), strings.ToLower(strings.Trim(approveText, "*"))) {
				st.Approved = bm[1] == "x" || bm[1] == "X"
				continue
			}
			if bm != nil {
				return nil, st, &ParseError{Line: l.n, Text: l.text,
					Msg: "this step is not under a file heading; put it below a line like: ### modify `path/to/file.go`"}
			}
			continue // lead text
		}
		if err := planLine(cur, l, bm); err != nil {
			return nil, st, err
		}
	}
	if len(p.Items) == 0 {
		return nil, st, &ParseError{Msg: "the plan has no file sections (### modify `path/to/file.go`) left"}
	}
	return p, st, nil
}

// planLine reads one line under a file heading: a reason, a step, or the
// continuation of a step.
func planLine(cur *Item, l line, bm []string) error {
	trim := strings.TrimSpace(l.text)
	indented := indentedRe.MatchString(l.text)
	switch {
	case len(cur.Steps) > 0 && indented:
		s := &cur.Steps[len(cur.Steps)-1]
		text := trim
		if bm != nil {
			text = strings.TrimSpace(bm[2])
		}
		s.Text += "; " + text
	case bm != nil:
		text := strings.TrimSpace(bm[2])
		if text == "" {
			return &ParseError{Line: l.n, Text: l.text, Msg: "this step is empty"}
		}
		cur.Steps = append(cur.Steps, Step{Text: text}) // a box (older plans) is read and ignored
	case len(cur.Steps) == 0:
		r := strings.TrimSpace(strings.TrimPrefix(trim, reasonPrefix))
		r = strings.TrimSpace(strings.TrimPrefix(r, "Why:"))
		cur.Reason = strings.TrimSpace(strings.TrimSpace(cur.Reason + " " + r))
	default:
		return &ParseError{Line: l.n, Text: l.text,
			Msg: "text between steps is not a step; start it with \"- \" to make it one, or indent it to continue the step above"}
	}
	return nil
}
