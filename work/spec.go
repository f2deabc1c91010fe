package work

import (
	"fmt"
	"strings"
)

// Action says what happens to a file in a spec or plan.
type Action string

// File actions.
const (
	ActionAdd    Action = "add"
	ActionModify Action = "modify"
	ActionDelete Action = "delete"
)

// ParseAction reads an action word as people and models write it ("add",
// "create", "new", "modify", "change", "edit", "update", "delete", "remove").
func ParseAction(s string) (Action, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "add", "create", "new":
		return ActionAdd, nil
	case "modify", "change", "edit", "update":
		return ActionModify, nil
	case "delete", "remove":
		return ActionDelete, nil
	}
	return "", fmt.Errorf("unknown action %q (want add, modify or delete)", s)
}

// FileChange is one file the spec says must change, and why.
type FileChange struct {
	Path   string `json:"path" desc:"repository-relative path with forward slashes"`
	Action Action `json:"action" desc:"add, modify or delete"`
	Reason string `json:"reason" desc:"why this file changes and what changes in it, one or two sentences"`
}

// Spec is the explorer's output: what the issue is about, how the code behaves
// now, how it should behave, which files change and what is still open. When
// the issue is too ambiguous to act on, Files is empty and Questions holds what
// must be answered first (see NeedsAnswers).
type Spec struct {
	Topic     string       `json:"topic"`
	Current   []string     `json:"current"`
	Desired   []string     `json:"desired"`
	Files     []FileChange `json:"files"`
	Questions []string     `json:"questions,omitempty"`
	// Partial is set when the run stopped (step, token or time budget)
	// before the explorer submitted; Note says why, in words for people.
	Partial bool   `json:"partial,omitempty"`
	Note    string `json:"note,omitempty"`
}

// NeedsAnswers reports whether the spec is a list of questions that must be
// answered before any plan can be made.
func (s *Spec) NeedsAnswers() bool {
	return len(s.Files) == 0 && len(s.Questions) > 0
}

// Validate checks what a spec must hold to be planned or shown: a topic, and
// either files (each with a clean relative path, a known action and a reason)
// or questions. It returns every problem found, one per line, so a model or a
// person can fix them all at once.
func (s *Spec) Validate() error {
	var probs []string
	if strings.TrimSpace(s.Topic) == "" {
		probs = append(probs, "topic is empty")
	}
	if len(s.Files) == 0 && len(s.Questions) == 0 {
		probs = append(probs, "no files and no questions: name the files to change, or ask what is unclear")
	}
	seen := map[string]bool{}
	for i, f := range s.Files {
		if err := CheckPath(f.Path); err != nil {
			probs = append(probs, fmt.Sprintf("files[%d]: %v", i, err))
		}
		if _, err := ParseAction(string(f.Action)); err != nil {
			probs = append(probs, fmt.Sprintf("files[%d] %s: %v", i, f.Path, err))
		}
		if strings.TrimSpace(f.Reason) == "" {
			probs = append(probs, fmt.Sprintf("files[%d] %s: reason is empty", i, f.Path))
		}
		if seen[f.Path] {
			probs = append(probs, fmt.Sprintf("files[%d] %s: listed twice", i, f.Path))
		}
		seen[f.Path] = true
	}
	if len(probs) > 0 {
		return fmt.Errorf("invalid spec:\n- %s", strings.Join(probs, "\n- "))
	}
	return nil
}

// Normalize trims every field, drops empty bullets and spells actions in
// their canonical form. Unknown actions are left as they are for Validate.
func (s *Spec) Normalize() {
	s.Topic = strings.TrimSpace(s.Topic)
	s.Current = trimAll(s.Current)
	s.Desired = trimAll(s.Desired)
	s.Questions = trimAll(s.Questions)
	for i := range s.Files {
		f := &s.Files[i]
		f.Path = strings.TrimPrefix(strings.Trim(strings.TrimSpace(f.Path), "`"), "./")
		f.Reason = strings.TrimSpace(f.Reason)
		if a, err := ParseAction(string(f.Action)); err == nil {
			f.Action = a
		}
	}
}

// CheckPath rejects paths a spec or plan must never name: empty, absolute,
// with backslashes, climbing out of the repository, or holding a control
// character or a backtick. The comments show a path inside a code span on
// one line; a line break or backtick in it would let the model (or a file
// name in the repository) write Markdown around it: a fake heading, or an
// HTML comment hiding plan items from the approver that the parser reads.
func CheckPath(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("path is empty")
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '`' }):
		return fmt.Errorf("path %q holds a control character or a backtick", p)
	case strings.HasPrefix(p, "/"), strings.Contains(p, "\\"), len(p) > 1 && p[1] == ':':
		return fmt.Errorf("path %q must be relative with forward slashes", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return fmt.Errorf("path %q leaves the repository", p)
		}
	}
	return nil
}

func trimAll(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
