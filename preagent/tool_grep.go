package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

func (s *session) grepTool() llm.Tool {
	return llm.NewTool(toolGrep, toolDesc("grep"), func(ctx context.Context, p repo.GrepParams) (llm.ToolResult, error) {
		out, err := s.e.ws.Grep(ctx, p)
		return s.observe(toolGrep, p.Pattern, "", out, err)
	})
}
