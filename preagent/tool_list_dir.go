package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

func (s *session) listDirTool() llm.Tool {
	return llm.NewTool(toolListDir, toolDesc("list_dir"), func(ctx context.Context, p repo.ListDirParams) (llm.ToolResult, error) {
		out, err := s.e.ws.ListDir(ctx, p)
		arg := p.Path
		if arg == "" {
			arg = "."
		}
		return s.observe(toolListDir, arg, "", out, err)
	})
}
