package session

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// MaxLookedAt bounds LookedAt's Markdown.
const MaxLookedAt = 6 << 10

// LookedAt renders what the run looked at, for the progress comment once the
// run ends: the files read (with verdicts[path], the explorer's one line
// about the file, when given), the searches, the commands and checks run
// with their results. No prompts, no replies, no mentions; folded in a <details>, at
// most MaxLookedAt bytes (the rest counted, not listed). "" when the events
// hold nothing of the kind.
func LookedAt(events []Event, verdicts map[string]string) string {
	var files, searches, checks []string
	seen := map[string]bool{}
	for _, e := range events {
		switch {
		case e.Tool != nil:
			args := toolArgs(e.Tool.Args)
			switch {
			case args["path"] != "" && strings.Contains(e.Tool.Name, "file"):
				p := args["path"]
				if seen["f"+p] {
					continue
				}
				seen["f"+p] = true
				line := "`" + mdCode(p) + "`"
				if v := verdicts[p]; v != "" {
					line += " — " + OneLine(v, 160)
				}
				files = append(files, line)
			case args["pattern"] != "" || args["query"] != "":
				q := args["pattern"] + args["query"]
				if seen["s"+e.Tool.Name+q] {
					continue
				}
				seen["s"+e.Tool.Name+q] = true
				searches = append(searches, fmt.Sprintf("%s `%s`", e.Tool.Name, mdCode(OneLine(q, 120))))
			}
		case e.Check != nil:
			mark := "✅"
			if !e.Check.OK {
				mark = "❌"
			}
			what := e.Check.Name
			if e.Check.Command != "" && e.Check.Command != what {
				what += " (`" + mdCode(OneLine(e.Check.Command, 120)) + "`)"
			}
			checks = append(checks, mark+" "+what)
		}
	}
	if len(files)+len(searches)+len(checks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<details><summary>What I looked at</summary>\n\n")
	budget := MaxLookedAt - 200
	section(&b, "Files read", files, &budget)
	section(&b, "Searches", searches, &budget)
	section(&b, "Commands and checks", checks, &budget)
	b.WriteString("</details>\n")
	return ghtext.Defuse(b.String()) // verdicts are model text: no mentions, no closing keywords
}

// section writes one titled list within budget bytes, counting what did not
// fit.
func section(b *strings.Builder, title string, lines []string, budget *int) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s** (%d)\n\n", title, len(lines))
	for i, l := range lines {
		if len(l)+3 > *budget {
			fmt.Fprintf(b, "- … and %d more\n", len(lines)-i)
			break
		}
		*budget -= len(l) + 3
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\n")
}

// toolArgs reads a tool call's string arguments.
func toolArgs(raw string) map[string]string {
	var m map[string]any
	out := map[string]string{}
	if json.Unmarshal([]byte(raw), &m) != nil {
		return out
	}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// mdCode keeps s inside an inline code span: no backticks, no line breaks.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(s)
}
