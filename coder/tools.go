package coder

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

// editParams are the arguments of the edit_file tool.
type editParams struct {
	Path  string `json:"path" desc:"file the edits apply to, relative to the repository root"`
	Edits string `json:"edits" desc:"SEARCH/REPLACE blocks (or <file-edit> tags) exactly as in a text answer"`
}

// tools returns the session's tools: edit_file (an attempt, like a text
// answer) and read_file (a bounded look at lines not shown in the prompt);
// with the text protocol only read_file.
func (s *session) tools() []llm.Tool {
	editTool := llm.NewTool("edit_file",
		"Apply SEARCH/REPLACE edit blocks to one file. Returns which blocks applied and why others were refused.",
		func(ctx context.Context, p editParams) (llm.ToolResult, error) {
			fb, err := s.apply(ctx, p.Edits, cleanRel(p.Path))
			if err != nil {
				return llm.ToolResult{}, err
			}
			stop := s.done || s.attempts >= s.r.c.opts.Attempts
			return llm.ToolResult{Content: fb, IsError: !s.done, Stop: stop}, nil
		})
	readTool := llm.NewTool("read_file",
		"Read up to 250 numbered lines of a file, from offset. Use it for lines the prompt did not show.",
		func(ctx context.Context, p repo.ReadFileParams) (llm.ToolResult, error) {
			s.reads++
			if s.reads > s.r.c.opts.MaxReads {
				return llm.ErrorResult("read limit of %d reached; answer with edit blocks now", s.r.c.opts.MaxReads), nil
			}
			s.r.event(s.key, s.attempts, "read", "%s from line %d", p.Path, max(p.Offset, 1))
			out, err := s.r.ws.ReadFile(ctx, p)
			if repo.IsModelError(err) {
				return llm.ErrorResult("%v", err), nil
			}
			if err != nil {
				return llm.ToolResult{}, fmt.Errorf("read_file %s: %w", p.Path, err)
			}
			if !s.r.c.opts.NoLineEdits {
				out = s.withWindowHash(p.Path, out)
			}
			return llm.ToolResult{Content: out}, nil
		})
	var ts []llm.Tool
	switch {
	case s.model.Protocol(llm.RoleCoder) == llm.ProtocolText:
		ts = []llm.Tool{readTool} // edits are the reply itself (systemPrompt)
	case s.r.c.opts.NoLineEdits:
		ts = []llm.Tool{editTool, readTool}
	default:
		ts = []llm.Tool{editTool, s.editLinesTool(), readTool}
	}
	if wrap := s.r.c.opts.WrapTool; wrap != nil {
		for i, t := range ts {
			ts[i] = wrap(t)
		}
	}
	return ts
}
