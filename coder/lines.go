package coder

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/llm"
)

// systemPrompt is the coder's system prompt: the house rules with the tools
// paragraph of the protocol, plus the line-range section unless line edits
// are switched off.
func (c *Coder) systemPrompt(p llm.Protocol) string {
	tools := "You may instead call the `edit_file` tool with the same text in `edits`, and `read_file` to see\n" +
		"lines of a large file that were not shown to you. Blocks written beside a tool call are applied too."
	if p == llm.ProtocolText {
		// The text protocol's one action per reply is for reading only:
		// edit blocks are the reply itself, never an action's argument.
		tools = "Write the blocks directly in your reply. To see lines of a large file that were not shown to\n" +
			"you, send a reply holding only the action line `read_file=>{\"path\": \"src/utils.go\", \"offset\": 120}`;\n" +
			"the lines come back in the next message. Never put an action line in a reply with blocks."
	}
	sys := strings.Replace(c.prompts.system, "{{TOOLS}}", tools, 1)
	if c.opts.NoLineEdits || p == llm.ProtocolText {
		return sys
	}
	return sys + c.prompts.lines
}

// editLinesParams are the arguments of the edit_lines tool.
type editLinesParams struct {
	Path     string `json:"path" desc:"file to change, relative to the repository root"`
	Start    int    `json:"start_line" desc:"first line to replace, 1-based, in the file as you read it"`
	End      int    `json:"end_line" desc:"last line to replace, inclusive"`
	OldLines string `json:"old_lines,omitempty" desc:"lines start_line..end_line exactly as they are now (needed unless hash is given)"`
	Hash     string `json:"hash,omitempty" desc:"the hash read_file showed when it returned exactly lines start_line..end_line"`
	NewLines string `json:"new_lines" desc:"the lines that replace the range; empty removes it"`
}

// linesText renders the tool's arguments as the <replace-lines> tag the
// engine reads, so a tool call and a text answer are one attempt alike.
func (p editLinesParams) linesText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<replace-lines filePath=%q start=\"%d\" end=\"%d\"", p.Path, p.Start, p.End)
	if p.Hash != "" {
		fmt.Fprintf(&b, " hash=%q", p.Hash)
	}
	b.WriteString(">\n")
	newLines := strings.TrimSuffix(p.NewLines, "\n")
	if p.OldLines != "" {
		b.WriteString("------- SEARCH\n" + strings.TrimSuffix(p.OldLines, "\n") + "\n=======\n")
		if p.NewLines != "" {
			b.WriteString(newLines + "\n")
		}
		b.WriteString("+++++++ REPLACE\n")
	} else if p.NewLines != "" {
		b.WriteString(newLines + "\n")
	}
	b.WriteString("</replace-lines>\n")
	return b.String()
}

// editLinesTool is edit_lines: one checked line range, one attempt.
func (s *session) editLinesTool() llm.Tool {
	return llm.NewTool("edit_lines",
		"Replace (or, with empty new_lines, remove) lines start_line..end_line of a file as you read it. The range is applied only if those lines are exactly old_lines (or match hash); otherwise it is refused and you are told where old_lines are.",
		func(ctx context.Context, p editLinesParams) (llm.ToolResult, error) {
			p.Path = cleanRel(p.Path)
			if p.Path == "" {
				p.Path = s.def
			}
			fb, err := s.apply(ctx, p.linesText(), p.Path)
			if err != nil {
				return llm.ToolResult{}, err
			}
			stop := s.done || s.attempts >= s.r.c.opts.Attempts
			return llm.ToolResult{Content: fb, IsError: !s.done, Stop: stop}, nil
		})
}

// windowHead matches read_file's header, "path — lines X–Y of N".
var windowHead = regexp.MustCompile(`(?m)^.* — lines (\d+)–(\d+) of \d+$`)

// withWindowHash appends to a read_file result the hash of the lines it
// showed, for hash= in a line range over exactly those lines. Any result it
// cannot tie to the file's lines is returned unchanged.
func (s *session) withWindowHash(path, out string) string {
	m := windowHead.FindStringSubmatch(out)
	if m == nil {
		return out
	}
	first, _ := strconv.Atoi(m[1])
	last, _ := strconv.Atoi(m[2])
	data, exists, err := s.r.tree.read(cleanRel(path))
	if err != nil || !exists {
		return out
	}
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	if first < 1 || last > len(lines) || first > last {
		return out
	}
	return out + fmt.Sprintf("hash of lines %d–%d: %s (hash=\"%s\" in a line range over exactly these lines)\n",
		first, last, edit.WindowHash(lines[first-1:last]), edit.WindowHash(lines[first-1:last]))
}
