package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
)

// searchOutput is the --json document of `bot search`.
type searchOutput struct {
	Files []summaries.Hit `json:"files"`
	// Summaries is "model" or "outline-only".
	Summaries string `json:"summaries"`
	Indexed   int    `json:"indexed"`
}

func newSearchCmd() *cobra.Command { return newSearchCmdWith(os.Environ) }

// newSearchCmdWith builds the command reading its index folder's variable
// (searchCacheEnv) from environ.
func newSearchCmdWith(environ func() []string) *cobra.Command {
	var dir, issue, cacheFlag string
	var k int
	var asJSON, explain bool
	cmd := &cobra.Command{
		Use:   "search --repo DIR --issue FILE|-",
		Short: "Rank the files of a checkout by how likely an issue touches them",
		Long: "search ranks every file of the checkout --repo the way an engineer skims an issue (--issue: " + issueFileFormat + "):\n" +
			"files and symbols the issue names, its words against paths, outlines and summaries, imports and tests.\n" +
			"It prints the top --k files with a one-line summary, matching symbols and why (--explain: every signal),\n" +
			"or JSON with --json. The index is kept between runs per checkout (--index-cache). " + exitCodes,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" || issue == "" {
				return usageErr("search needs --repo DIR and --issue FILE (or - for stdin)")
			}
			if k <= 0 {
				return usageErr("--k must be positive, got %d", k)
			}
			text, err := readIssue(cmd.InOrStdin(), issue)
			if err != nil {
				return err
			}
			if err := repoDir(dir); err != nil {
				return err
			}
			ws, err := repo.OpenWorkspace(dir)
			if err != nil {
				return err
			}
			defer ws.Close()
			idx, saveErr, err := summaries.LoadCached(cmd.Context(), ws, searchCacheDir(cacheFlag, environ()), summaries.Options{})
			if saveErr != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "bot search: %v\n", saveErr)
			}
			if err != nil {
				return fmt.Errorf("index %s: %w", dir, err)
			}
			hits := withoutPath(idx.Search(text, k+1), pathIn(dir, issue), k)
			out := searchOutput{Files: hits, Summaries: "outline-only", Indexed: len(idx.Files())}
			if idx.ModelSummaries() {
				out.Summaries = "model"
			}
			if out.Files == nil {
				out.Files = []summaries.Hit{}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			printHits(w, out, explain)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "repo", "", "checkout to search")
	cmd.Flags().StringVar(&issue, "issue", "", "file holding the issue ("+issueFileFormat+"), or - for stdin")
	cmd.Flags().IntVar(&k, "k", 10, "number of files to return")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&explain, "explain", false, "print, per file, the signals that ranked it")
	cmd.Flags().StringVar(&cacheFlag, "index-cache", "", "folder of the persistent index, \"off\" for none (default $"+
		searchCacheEnv+", else <user cache dir>/issuesmith/search)")
	return cmd
}

// pathIn returns file's slash path relative to the checkout dir when it
// lies inside it, else "" (stdin, or a file elsewhere).
func pathIn(dir, file string) string {
	if file == "-" {
		return ""
	}
	real := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	rel, err := filepath.Rel(real(dir), real(file))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// withoutPath drops the hit for path (the issue file itself, which matches
// its own words best) and keeps at most k.
func withoutPath(hits []summaries.Hit, path string, k int) []summaries.Hit {
	out := hits[:0:0]
	for _, h := range hits {
		if h.Path != path || path == "" {
			out = append(out, h)
		}
	}
	return out[:min(len(out), k)]
}

// readIssue reads the issue text from a file or, for "-", from stdin.
func readIssue(stdin io.Reader, name string) (string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return "", usageErr("--issue: %v", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", usageErr("the issue text is empty")
	}
	return string(data), nil
}

func printHits(w io.Writer, out searchOutput, explain bool) {
	fmt.Fprintf(w, "# %d files indexed, summaries: %s\n", out.Indexed, out.Summaries)
	for i, h := range out.Files {
		fmt.Fprintf(w, "%2d. %-60s %.3f\n", i+1, h.Path, h.Score)
		if h.Summary != "" {
			fmt.Fprintf(w, "    %s\n", h.Summary)
		}
		for _, s := range h.Symbols {
			fmt.Fprintf(w, "    · %s\n", s)
		}
		switch {
		case explain:
			for _, s := range h.Signals {
				fmt.Fprintf(w, "    + %s\n", s)
			}
		case len(h.Reasons) > 0:
			fmt.Fprintf(w, "    why: %s\n", strings.Join(h.Reasons, "; "))
		}
	}
}

// searchCacheEnv names the environment variable that sets the folder of
// `bot search`'s persistent index; "off" disables it.
const searchCacheEnv = "ISSUESMITH_SEARCH_CACHE"

// searchCacheDir returns the folder of persistent search indexes: the
// flag, else environ's ISSUESMITH_SEARCH_CACHE, else <user cache
// dir>/issuesmith/search. "" means no persistent index.
func searchCacheDir(flag string, environ []string) string {
	dir := flag
	if dir == "" {
		dir, _ = procenv.Lookup(environ, searchCacheEnv)
	}
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "issuesmith", "search")
	}
	return dir
}
