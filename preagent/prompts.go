package preagent

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/issuesmith/issuesmith/llm"
)

//go:embed prompts/*.md
var promptFS embed.FS

// prompt returns an embedded prompt file's text.
func prompt(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name)
	if err != nil {
		// Embedded at build time: a missing file is a broken build.
		panic(fmt.Sprintf("preagent: prompt %s: %v", name, err))
	}
	return string(b)
}

// toolDesc is the embedded description of the explorer tool name
// (prompts/tool_<name>.md).
func toolDesc(name string) string {
	return strings.TrimSpace(prompt("tool_" + name + ".md"))
}

// explorerSystem renders the explorer's system prompt.
func explorerSystem(guidance string, search bool) (string, error) {
	t, err := template.New("explorer").Parse(prompt("explorer.md"))
	if err != nil {
		return "", fmt.Errorf("parse explorer prompt: %w", err)
	}
	var b bytes.Buffer
	err = t.Execute(&b, struct {
		Guidance string
		Search   bool
	}{defuse(guidance, "guidance"), search})
	if err != nil {
		return "", fmt.Errorf("render explorer prompt: %w", err)
	}
	return b.String(), nil
}

// A typical issue's share of the explorer's first request, in tokens: the
// probe checks a model's window against that request (FirstRequestTokens).
const typicalIssueTokens = 1000

// FirstRequestTokens estimates the explorer's first request with a typical
// issue: the system prompt and the tools' definitions, the issue, and the
// top-level tree and README head at their caps (firstMessages), counted
// with llm's tokenizer. The start-up probe checks the model's context
// window against it (llm.Client.ExpectPrompt).
func FirstRequestTokens() int {
	sys, err := explorerSystem("", false)
	if err != nil {
		return 0
	}
	s := &session{e: &Explorer{}, opts: Options{}.withDefaults()}
	n := llm.CountText(sys) + typicalIssueTokens + 1500 + 1200
	for _, t := range s.tools() {
		spec := t.Spec()
		n += llm.CountText(spec.Name+spec.Description) + llm.CountText(string(spec.Parameters))
	}
	return n
}
