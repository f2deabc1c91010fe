package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

const grepDesc = `Search file contents for a regular expression (or plain text with literal) and show matching ` +
	`lines with their paths and line numbers. Narrow it with path, include and exclude globs. ` +
	`Use it to find where a name is defined or used.`

func (s *session) grepTool() llm.Tool {
	return llm.NewTool(toolGrep, grepDesc, func(ctx context.Context, p repo.GrepParams) (llm.ToolResult, error) {
		out, err := s.e.ws.Grep(ctx, p)
		return s.observe(toolGrep, p.Pattern, "", out, err)
	})
}
