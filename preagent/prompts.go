package preagent

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
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
