package preagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// maxSearchHits caps search's limit.
const maxSearchHits = 20

// searchParams are the arguments of search.
type searchParams struct {
	Query string `json:"query" desc:"What you are looking for, in a few words or identifiers"`
	Limit int    `json:"limit,omitempty" desc:"How many files to return (default 10, at most 20)"`
}

// searchTool returns the search tool, or nil when there is no index.
func (s *session) searchTool() llm.Tool {
	if s.e.idx == nil {
		return nil
	}
	return llm.NewTool(toolSearch, toolDesc("search"), func(ctx context.Context, p searchParams) (llm.ToolResult, error) {
		if strings.TrimSpace(p.Query) == "" {
			return llm.ErrorResult("query is empty: say in a few words what you are looking for"), nil
		}
		k := p.Limit
		if k <= 0 {
			k = DefaultSearchHits
		}
		k = min(k, maxSearchHits) // the description promises "at most 20", not the default
		hits := s.e.idx.Search(p.Query, k)
		var b strings.Builder
		if len(hits) == 0 {
			b.WriteString("no files match; try other words, grep, or list_dir")
		}
		for i, h := range hits {
			fmt.Fprintf(&b, "%d. %s", i+1, h.Path)
			if h.Summary != "" {
				b.WriteString(" — " + oneLine(h.Summary, 200))
			}
			b.WriteString("\n")
			for _, sym := range h.Symbols {
				b.WriteString("     " + oneLine(sym, 160) + "\n")
			}
		}
		return s.observe(toolSearch, p.Query, "", strings.TrimRight(b.String(), "\n"), nil)
	})
}

// fileSummary is the index's one-line summary of path, or "".
func (s *session) fileSummary(path string) string {
	if s.e.idx == nil {
		return ""
	}
	return oneLine(s.e.idx.Summary(path), 200)
}
