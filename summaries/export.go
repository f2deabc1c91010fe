package summaries

import (
	"encoding/json"
	"io"
)

// Export is the index as `bot summarize --json` prints it: every file's
// summary, where it came from, its resolved in-repository imports and its
// outline, with the counts of the build or refresh that made it.
type Export struct {
	// ModelSummaries is true when a model wrote the summaries (false:
	// derived from outlines).
	ModelSummaries bool         `json:"model_summaries"`
	Stats          ExportStats  `json:"stats"`
	Files          []ExportFile `json:"files"`
}

// ExportStats are Stats with JSON names (elapsed in seconds).
type ExportStats struct {
	Files            int            `json:"files"`
	Parsed           int            `json:"parsed"`
	Removed          int            `json:"removed"`
	Summarised       int            `json:"summarised"`
	CacheHits        int            `json:"cache_hits"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	ElapsedS         float64        `json:"elapsed_s"`
	Outlines         map[string]int `json:"outlines,omitempty"`
}

// ExportFile is one indexed file.
type ExportFile struct {
	Path      string `json:"path"`
	Blob      string `json:"blob"`
	Size      int64  `json:"size"`
	Summary   string `json:"summary"`
	FromModel bool   `json:"from_model"`
	// Imports are the repository files this file imports (resolved).
	Imports []string `json:"imports,omitempty"`
	// Outline is nil for binary, unreadable or oversized files.
	Outline *Outline `json:"outline,omitempty"`
}

// Export returns the index's files in path order with s's counts.
func (ix *Index) Export(s Stats) Export {
	out := Export{ModelSummaries: ix.ModelSummaries(), Files: []ExportFile{}, Stats: ExportStats{
		Files: s.Files, Parsed: s.Parsed, Removed: s.Removed, Summarised: s.Summarised, CacheHits: s.CacheHits,
		PromptTokens: s.Tokens.PromptTokens, CompletionTokens: s.Tokens.CompletionTokens,
		ElapsedS: s.Elapsed.Seconds(), Outlines: s.Outlines,
	}}
	for _, p := range ix.Files() {
		f := ix.File(p)
		if f == nil {
			continue
		}
		out.Files = append(out.Files, ExportFile{Path: f.Path, Blob: f.Blob, Size: f.Size, Summary: f.Summary,
			FromModel: f.FromModel, Imports: ix.Imports(p), Outline: f.Outline})
	}
	return out
}

// WriteJSON writes Export(s) as one line of JSON.
func (ix *Index) WriteJSON(w io.Writer, s Stats) error {
	return json.NewEncoder(w).Encode(ix.Export(s))
}
