package preagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
)

// previewParams are the arguments of preview_file.
type previewParams struct {
	Path string `json:"path" desc:"File to preview, relative to the repository root"`
}

func (s *session) previewFileTool() llm.Tool {
	return llm.NewTool(toolPreviewFile, toolDesc("preview_file"), func(ctx context.Context, p previewParams) (llm.ToolResult, error) {
		path, err := repo.Clean(p.Path)
		if err != nil {
			return s.observe(toolPreviewFile, p.Path, "", "", err)
		}
		src, err := s.e.ws.ReadBytes(path)
		if err != nil {
			return s.observe(toolPreviewFile, p.Path, "", "", err)
		}
		o, err := summaries.OutlineOf(path, src)
		if errors.Is(err, summaries.ErrBinary) {
			return s.observe(toolPreviewFile, p.Path, "", "", fmt.Errorf("%s is a binary file: %w", path, repo.ErrBadArgument))
		}
		if err != nil {
			return llm.ToolResult{}, fmt.Errorf("preview %s: %w", path, err)
		}
		out := o.Render()
		if sum := s.fileSummary(path); sum != "" {
			out = "summary: " + sum + "\n" + out
		}
		return s.observe(toolPreviewFile, p.Path, path, out, nil)
	})
}
