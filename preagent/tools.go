package preagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
)

// Tool names of the explorer.
const (
	toolListDir     = "list_dir"
	toolReadFile    = "read_file"
	toolPreviewFile = "preview_file"
	toolGrep        = "grep"
	toolSearch      = "search"
	toolSubmitSpec  = "submit_spec"
)

// observation is what one tool call showed the explorer, kept apart from the
// conversation so compression can judge it after the raw text is dropped.
type observation struct {
	Step    int
	Tool    string
	Arg     string // the path, pattern or query
	Path    string // the file shown, for read_file and preview_file
	Content string
	IsError bool
	folded  bool // already in the compact record
}

// tools returns the explorer's tool set for one session.
func (s *session) tools() []llm.Tool {
	ts := []llm.Tool{s.listDirTool(), s.readFileTool(), s.previewFileTool(), s.grepTool()}
	if t := s.searchTool(); t != nil {
		ts = append(ts, t)
	}
	ts = append(ts, s.submitSpecTool())
	if wrap := s.opts.WrapTool; wrap != nil {
		for i, t := range ts {
			ts[i] = wrap(t)
		}
	}
	return ts
}

// observe finishes a tool call: a model-fixable workspace error becomes an
// error result, any other error is ours; the result is capped and recorded.
func (s *session) observe(tool, arg, path, out string, err error) (llm.ToolResult, error) {
	if err != nil {
		if !repo.IsModelError(err) {
			return llm.ToolResult{}, fmt.Errorf("%s %s: %w", tool, arg, err)
		}
		s.obs = append(s.obs, observation{Step: s.step, Tool: tool, Arg: arg, Content: err.Error(), IsError: true})
		msg := err.Error()
		if errors.Is(err, repo.ErrNotExist) {
			msg += ". Do not guess paths: use list_dir, grep or search to find them"
			cand := path
			if cand == "" && tool != toolGrep {
				cand, _ = repo.Clean(arg)
			}
			if alt := s.suggest(cand); len(alt) > 0 {
				msg += ". Did you mean: " + strings.Join(alt, ", ") + "?"
			}
		}
		return llm.ErrorResult("%s", msg), nil
	}
	out = cutTokens(out, s.opts.MaxResultTokens,
		"output cut to fit the context: ask for a smaller window (offset, limit) or a narrower pattern")
	s.obs = append(s.obs, observation{Step: s.step, Tool: tool, Arg: arg, Path: path, Content: out})
	return llm.ToolResult{Content: out}, nil
}

// cutTokens returns s cut at a line boundary to at most n tokens, with a
// note saying so; s itself when it fits.
func cutTokens(s string, n int, note string) string {
	if n <= 0 || llm.CountText(s) <= n {
		return s
	}
	suffix := "\n[… " + note + " …]"
	budget := n - llm.CountText(suffix)
	if budget < 1 {
		budget = 1
	}
	// Shrink by the measured ratio until it fits; a few rounds at most.
	cut := s
	for i := 0; i < 8 && llm.CountText(cut) > budget; i++ {
		size := len(cut) * budget / (llm.CountText(cut) + 1)
		if size >= len(cut) {
			size = len(cut) - 1
		}
		if size <= 0 {
			cut = ""
			break
		}
		cut = cutRunes(cut, size)
		if j := strings.LastIndexByte(cut, '\n'); j > len(cut)/2 {
			cut = cut[:j]
		}
	}
	return cut + suffix
}

// describeCall renders a tool call as "name arg" for progress and records.
func describeCall(tc llm.ToolCall) string {
	var args map[string]any
	_ = json.Unmarshal([]byte(tc.Arguments), &args)
	for _, k := range []string{"pattern", "query", "path"} {
		if v, ok := args[k].(string); ok && v != "" {
			return tc.Name + " " + oneLine(v, 80)
		}
	}
	return tc.Name
}

// oneLine folds whitespace and cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
