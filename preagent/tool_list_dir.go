package preagent

import (
	"context"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

const listDirDesc = `List a folder of the repository as a tree (the "open a folder" action). ` +
	`Deeper folders are folded with their file counts; .gitignored files, .git, vendor/ and node_modules/ are left out. ` +
	`Use it to learn the layout before opening files.`

func (s *session) listDirTool() llm.Tool {
	return llm.NewTool(toolListDir, listDirDesc, func(ctx context.Context, p repo.ListDirParams) (llm.ToolResult, error) {
		out, err := s.e.ws.ListDir(ctx, p)
		arg := p.Path
		if arg == "" {
			arg = "."
		}
		return s.observe(toolListDir, arg, "", out, err)
	})
}
