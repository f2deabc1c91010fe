package preagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// specParams are the arguments of submit_spec.
type specParams struct {
	Topic     string            `json:"topic" desc:"One line: what the issue asks for"`
	Current   []string          `json:"current" desc:"How the code behaves now: short bullets naming files"`
	Desired   []string          `json:"desired" desc:"How it should behave after the change: short bullets"`
	Files     []work.FileChange `json:"files" desc:"Every file to add, modify or delete, with the reason; empty when only questions can be asked"`
	Questions []string          `json:"questions,omitempty" desc:"What a maintainer must decide that the issue does not say"`
}

func (s *session) submitSpecTool() llm.Tool {
	return llm.NewTool(toolSubmitSpec, toolDesc("submit_spec"), func(ctx context.Context, p specParams) (llm.ToolResult, error) {
		spec := &work.Spec{Topic: p.Topic, Current: p.Current, Desired: p.Desired, Files: p.Files, Questions: p.Questions}
		spec.Normalize()
		if err := spec.Validate(); err != nil {
			return llm.ErrorResult("%v\nFix these and call submit_spec again.", err), nil
		}
		if subs := s.submoduleFiles(spec); len(subs) > 0 {
			return llm.ErrorResult("these paths are git submodules or lie in one (another repository pinned at a commit; "+
				"the bot cannot change them): %s. Leave them out of files, and say in current or desired what they "+
				"would need, if anything.", strings.Join(subs, ", ")), nil
		}
		if missing := s.missingFiles(spec); len(missing) > 0 {
			return llm.ErrorResult("these files do not exist in the repository, so they cannot be modified or deleted: %s. "+
				"Use action add for new files, or correct the paths.", strings.Join(missing, ", ")), nil
		}
		s.spec = spec
		return llm.ToolResult{Content: fmt.Sprintf("spec received: %d files, %d questions", len(spec.Files), len(spec.Questions)), Stop: true}, nil
	})
}

// missingFiles lists files the spec modifies or deletes that do not exist.
func (s *session) missingFiles(spec *work.Spec) []string {
	var out []string
	for _, f := range spec.Files {
		if f.Action == work.ActionAdd {
			continue
		}
		if _, err := s.e.ws.ReadBytes(f.Path); err != nil && isNotExist(err) {
			out = append(out, f.Path)
		}
	}
	return out
}

// submoduleFiles lists the spec's files that are, or lie in, a git
// submodule.
func (s *session) submoduleFiles(spec *work.Spec) []string {
	var out []string
	for _, f := range spec.Files {
		if s.e.ws.InSubmodule(f.Path) != "" {
			out = append(out, f.Path)
		}
	}
	return out
}
