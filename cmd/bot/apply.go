package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/repo"
)

// newApplyCmd builds `bot apply`: apply model-written edits read from stdin
// to the files under --root. Exit status: 0 every block applied, 1 any
// block refused (nothing written unless --partial) or no edit in the text,
// 2 usage error.
func newApplyCmd() *cobra.Command {
	var (
		root, file, format string
		asJSON, partial    bool
		allowBlocked       bool
	)
	formats := make([]string, 0, len(edit.Formats()))
	for _, f := range edit.Formats() {
		formats = append(formats, string(f))
	}
	cmd := &cobra.Command{
		Use:   "apply --root DIR [--file PATH] [--format auto|...] [--json] [--partial] < EDIT",
		Short: "apply model-written edit blocks read from stdin to the files under a folder",
		Long: `apply reads edit text on stdin (SEARCH/REPLACE blocks, a Codex patch, a unified diff,
a lazy "... existing code ..." snippet or whole-file content), applies it to the files
under --root, and reports each block. It is all-or-nothing unless --partial is given.

It never writes inside .git/ (a git hook would run on your next commit), and it
refuses the App's default blocked paths (` + strings.Join(coder.DefaultBlocked, ", ") + `: CI
workflows run with the repository's secrets) unless --allow-blocked is given.

Exit status: 0 when every block applied (or was already applied), 1 when any block
was refused or the text holds no edit, 2 on usage errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if root == "" {
				return usageErr("apply: --root is required")
			}
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				return usageErr("apply: --root %q is not a folder", root)
			}
			f, ok := edit.ParseFormat(format)
			if !ok {
				return usageErr("apply: unknown --format %q (one of %s)", format, strings.Join(formats, ", "))
			}
			text, err := io.ReadAll(cmd.InOrStdin())
			if err != nil {
				return fmt.Errorf("apply: read stdin: %w", err)
			}
			opts := edit.Options{Path: file, Format: f, Partial: partial, Blocked: applyBlocked(allowBlocked)}
			if ws, err := repo.OpenWorkspace(root); err == nil {
				opts.Submodules = ws.Submodules() // never written: the bot cannot change a submodule
			}
			rep, err := edit.Apply(root, string(text), opts)
			if err != nil {
				return fmt.Errorf("apply: %w", err)
			}
			// A refusal is reported on stderr so pipelines see it; JSON always goes to stdout.
			out := cmd.OutOrStdout()
			if !rep.OK() && !asJSON {
				out = cmd.ErrOrStderr()
			}
			if err := writeReport(out, rep, asJSON); err != nil {
				return fmt.Errorf("apply: write report: %w", err)
			}
			if !rep.OK() {
				return &exitError{code: 1, err: errors.New("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "folder the edit's paths are relative to (required)")
	cmd.Flags().StringVar(&file, "file", "", "target file for edits that name none (relative to --root)")
	cmd.Flags().StringVar(&format, "format", "auto", "edit format: "+strings.Join(formats, ", "))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&partial, "partial", false, "write the blocks that applied even when others were refused")
	cmd.Flags().BoolVar(&allowBlocked, "allow-blocked", false,
		"also write the App's default blocked paths ("+strings.Join(coder.DefaultBlocked, ", ")+"); .git/ stays refused")
	return cmd
}

// applyBlocked is the path rule of `bot apply`: .git (any case, after
// cleaning, at any depth: a submodule's .git too) is always refused; the
// App's default blocked globs are refused unless allowBlocked.
func applyBlocked(allowBlocked bool) func(string) bool {
	return func(p string) bool {
		for _, seg := range strings.Split(path.Clean(strings.ReplaceAll(p, "\\", "/")), "/") {
			if strings.EqualFold(seg, ".git") {
				return true
			}
		}
		return !allowBlocked && coder.Globs(coder.DefaultBlocked).Match(p)
	}
}

// writeReport prints the report as JSON or as the human feedback text.
func writeReport(w io.Writer, rep *edit.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	_, err := io.WriteString(w, rep.Feedback())
	return err
}
