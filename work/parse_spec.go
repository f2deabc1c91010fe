package work

import (
	"fmt"
	"strings"
)

// ParseSpec reads a spec comment, as rendered by RenderSpec and then edited by
// people, back into a Spec. Bullets may be added, removed, reordered and
// reworded; files may be added (any "- [x] action `path` — reason" line),
// unticked (dropped) or deleted. Plain text in a bullet section becomes a
// bullet, an indented line continues the bullet above it. A line that cannot
// be read yields a *ParseError naming it.
func ParseSpec(body string) (*Spec, error) {
	if err := checkKind(body, KindSpec); err != nil {
		return nil, err
	}
	s := &Spec{}
	section := ""
	var list *[]string
	for _, l := range contentLines(body) {
		trim := strings.TrimSpace(l.text)
		if h := headingRe.FindStringSubmatch(trim); h != nil {
			var err error
			section, list, err = specSection(s, l, h[1], h[2])
			if err != nil {
				return nil, err
			}
			continue
		}
		if t, ok := strings.CutPrefix(trim, strings.TrimSpace(partialPrefix)); ok {
			s.Partial, s.Note = true, strings.TrimSpace(t)
			continue
		}
		if section == "" {
			continue // the lead text under the title is the bot's own
		}
		if err := specLine(s, section, list, l); err != nil {
			return nil, err
		}
	}
	if s.Topic == "" {
		return nil, &ParseError{Msg: "the title line \"## Spec: topic\" is missing or empty"}
	}
	return s, nil
}

// specSection handles a heading line: the title or one of the known
// sections; any other heading is an error.
func specSection(s *Spec, l line, hashes, title string) (string, *[]string, error) {
	if len(hashes) == 2 {
		topic, ok := strings.CutPrefix(title, strings.TrimPrefix(strings.TrimSpace(specTitle), "## "))
		if !ok {
			return "", nil, &ParseError{Line: l.n, Text: l.text, Msg: "the title must read \"## Spec: topic\""}
		}
		s.Topic = strings.TrimSpace(topic)
		return "", nil, nil
	}
	switch strings.ToLower(strings.TrimRight(title, ":")) {
	case strings.ToLower(secCurrent), "current behavior":
		return secCurrent, &s.Current, nil
	case strings.ToLower(secDesired), "desired behavior":
		return secDesired, &s.Desired, nil
	case strings.ToLower(secFiles):
		return secFiles, nil, nil
	case strings.ToLower(secQuestions), "questions":
		return secQuestions, &s.Questions, nil
	}
	return "", nil, &ParseError{Line: l.n, Text: l.text, Msg: fmt.Sprintf(
		"unknown section %q (the spec has: %s, %s, %s, %s)", title, secCurrent, secDesired, secFiles, secQuestions)}
}

// specLine reads one line inside a section.
func specLine(s *Spec, section string, list *[]string, l line) error {
	bm := bulletRe.FindStringSubmatch(l.text)
	cont := indentedRe.MatchString(l.text) && (bm == nil || strings.HasPrefix(l.text, "    "))
	if section == secFiles {
		if cont && len(s.Files) > 0 {
			f := &s.Files[len(s.Files)-1]
			f.Reason = strings.TrimSpace(f.Reason + " " + strings.TrimSpace(l.text))
			return nil
		}
		if bm == nil {
			return &ParseError{Line: l.n, Text: l.text,
				Msg: "a file line must be a task-list item, like: - [x] **modify** `path/to/file.go` — reason"}
		}
		f, err := parseFileRef(l, bm[2])
		if err != nil {
			return err
		}
		if bm[1] == " " {
			return nil // unticked: the person dropped this file
		}
		for _, g := range s.Files {
			if g.Path == f.Path {
				return &ParseError{Line: l.n, Text: l.text, Msg: fmt.Sprintf("%s is listed twice", f.Path)}
			}
		}
		s.Files = append(s.Files, f)
		return nil
	}
	text := strings.TrimSpace(l.text)
	if bm != nil {
		text = strings.TrimSpace(bm[2])
	}
	if cont && len(*list) > 0 {
		(*list)[len(*list)-1] += " " + strings.TrimSpace(l.text)
		return nil
	}
	*list = append(*list, text)
	return nil
}
