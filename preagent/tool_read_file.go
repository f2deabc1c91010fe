package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

const readFileDesc = `Open a window of a file (the "open a file" action): up to 250 numbered lines from offset. ` +
	`The header says how many lines the file has; ask for the next window with offset. ` +
	`Preview the outline first when a file is long, then read the lines that matter.`

func (s *session) readFileTool() llm.Tool {
	return llm.NewTool(toolReadFile, readFileDesc, func(ctx context.Context, p repo.ReadFileParams) (llm.ToolResult, error) {
		out, err := s.e.ws.ReadFile(ctx, p)
		path, _ := repo.Clean(p.Path)
		return s.observe(toolReadFile, p.Path, path, out, err)
	})
}
