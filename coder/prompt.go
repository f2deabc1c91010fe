package coder

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/issuesmith/issuesmith/internal/fence"
)

//go:embed prompts/*
var promptFS embed.FS

// prompts are the parsed templates. Parsing happens in New, not in init, so a
// broken template is an error of New (and of every test), never a panic.
type prompts struct {
	system string
	lines  string // the line-range section, appended unless Options.NoLineEdits
	apply  string // the apply model's system prompt (Options.ApplyModel)
	item   *template.Template
	fix    *template.Template
	revise *template.Template
	fixci  *template.Template
}

func loadPrompts() (*prompts, error) {
	sys, err := promptFS.ReadFile("prompts/system.md")
	if err != nil {
		return nil, fmt.Errorf("read system prompt: %w", err)
	}
	funcs := template.FuncMap{
		"add":   func(a, b int) int { return a + b },
		"fence": fenceText,
		"quote": quote,
		"join":  strings.Join,
	}
	lines, err := promptFS.ReadFile("prompts/lines.md")
	if err != nil {
		return nil, fmt.Errorf("read line-range prompt: %w", err)
	}
	apply, err := promptFS.ReadFile("prompts/apply.md")
	if err != nil {
		return nil, fmt.Errorf("read apply prompt: %w", err)
	}
	p := &prompts{system: string(sys), lines: string(lines), apply: string(apply)}
	for name, dst := range map[string]**template.Template{"item": &p.item, "fix": &p.fix, "revise": &p.revise, "fixci": &p.fixci} {
		t, err := template.New(name).Funcs(funcs).Option("missingkey=error").ParseFS(promptFS, "prompts/"+name+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("parse %s prompt: %w", name, err)
		}
		*dst = t.Lookup(name + ".tmpl")
	}
	return p, nil
}

func render(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render %s prompt: %w", t.Name(), err)
	}
	return b.String(), nil
}

// fenceText wraps text in a code fence longer than any backtick run inside it, so
// file content can never close the fence early.
func fenceText(s string) string {
	f := fence.For(s, 3)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + "\n" + s + f
}

// quote renders text as a Markdown block quote.
func quote(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// planLine is one plan item as listed in every item prompt. The list
// (path and action) is the same in every item's prompt, so a provider's
// prefix cache serves it with the task above it; what changes from item to
// item (which one this is, the status of earlier ones) comes after it.
type planLine struct {
	Path, Action, Status string
}

// itemPrompt is the data of prompts/item.tmpl.
type itemPrompt struct {
	Topic            string
	Current, Desired []string
	Plan             []planLine
	Path, Action     string
	Number           int // this item's place in Plan, from 1
	Reason           string
	Steps            []string
	View             fileView
	Done             string // diffs of the edits already made in this run
}

// fixPrompt is the data of prompts/fix.tmpl.
type fixPrompt struct {
	Round, Rounds int
	Checks        []CheckResult
	Topic         string
	Files         []string
	Views         []fileView
	Allowed       []string
}

// fixCIPrompt is the data of prompts/fixci.tmpl.
type fixCIPrompt struct {
	Path, Topic, Diff, Evidence string
	Plan                        []string
	View                        fileView
}

// revisePrompt is the data of prompts/revise.tmpl.
type revisePrompt struct {
	Path, Lines, Comment, Topic string
	DiffHunk                    string
	Thread                      []string
	View                        fileView
}
