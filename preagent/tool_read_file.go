package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

func (s *session) readFileTool() llm.Tool {
	return llm.NewTool(toolReadFile, toolDesc("read_file"), func(ctx context.Context, p repo.ReadFileParams) (llm.ToolResult, error) {
		out, err := s.e.ws.ReadFile(ctx, p)
		path, _ := repo.Clean(p.Path)
		return s.observe(toolReadFile, p.Path, path, out, err)
	})
}
