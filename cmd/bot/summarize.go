package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

// summarizeFlags are the command line of `bot summarize`.
type summarizeFlags struct {
	dir, db, every string
	noModel, json  bool
}

func newSummarizeCmd() *cobra.Command { return newSummarizeCmdWith(os.Environ) }

// newSummarizeCmdWith builds the command reading settings from environ
// (tests pass their own).
func newSummarizeCmdWith(environ func() []string) *cobra.Command {
	var f summarizeFlags
	cmd := &cobra.Command{
		Use:   "summarize --repo DIR",
		Short: "build outlines, imports and one-line summaries of every file of a checkout",
		Long: "summarize parses every file (outline and imports) and writes a one-line summary of each source " +
			"file with the configured model (ISSUESMITH_MODEL_* variables), cached by git blob hash in the " +
			"database (--database), so unchanged files are never " +
			"summarised twice. Without a model it builds outline-only summaries and says so. With --every it " +
			"stays running and refreshes on that cron schedule, re-reading only changed files. With --json it prints, " +
			"instead of the counts, one JSON document per build or refresh: {\"model_summaries\", \"stats\", \"files\": " +
			"[{\"path\", \"blob\", \"size\", \"summary\", \"from_model\", \"imports\", \"outline\"}]} (docs/local-tools.md: bot summarize).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir == "" {
				return usageErr("summarize needs --repo DIR")
			}
			return runSummarize(cmd.Context(), f, environ(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.dir, "repo", "", "checkout to summarise")
	cmd.Flags().StringVar(&f.db, "database", "", "summary cache database: a SQLite file path or a postgres:// URL "+
		"(default: $ISSUESMITH_DATABASE_URL, else "+store.DefaultDSN+" in the state directory: docs/configure.md)")
	cmd.Flags().StringVar(&f.every, "every", "", `keep running and refresh on this cron schedule ("@every 10m", "0 * * * *")`)
	cmd.Flags().BoolVar(&f.noModel, "no-model", false, "outline-only summaries even when a model is configured")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the summaries, outlines and imports made, as JSON (one document per build or refresh)")
	return cmd
}

func runSummarize(ctx context.Context, f summarizeFlags, environ []string, stdout, stderr io.Writer) error {
	local, err := config.ParseLocal(environ)
	if err != nil {
		return err
	}
	var sched *summaries.Schedule
	if f.every != "" {
		s, err := summaries.ParseSchedule(f.every)
		if err != nil {
			return usageErr("--every: %v", err)
		}
		sched = s
	}
	dsn := f.db
	if dsn == "" {
		if dsn, err = local.DB(); err != nil {
			return err
		}
	}
	opts := summaries.Options{}
	if !f.noModel && local.Model.Configured() {
		if opts.Model, err = newSummaryModel(local); err != nil {
			return err
		}
	}
	if err := repoDir(f.dir); err != nil {
		return err
	}
	ws, err := repo.OpenWorkspace(f.dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := store.OpenMigrated(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	opts.Cache = st
	bar := newProgressBar(stderr)
	opts.Progress = func(ev work.Event) { bar.update(ev.Stage, ev.Count, ev.Of) }
	// The database (and its WAL) may live inside the checkout (the default
	// issuesmith.db when run from it): never index the store's own files.
	src := summaries.Without(ws, storeFilesIn(ws.Dir(), dsn)...)
	idx, err := summaries.Build(ctx, src, opts)
	bar.done()
	if err != nil {
		return fmt.Errorf("summarize %s: %w", f.dir, err)
	}
	report := func(s summaries.Stats) error {
		if f.json {
			return idx.WriteJSON(stdout, s)
		}
		printSummaryStats(stdout, s, opts.Model != nil, idx.ModelSummaries())
		return nil
	}
	if err := report(idx.LastStats()); err != nil {
		return err
	}
	if sched == nil {
		return nil
	}
	fmt.Fprintf(stderr, "refreshing on schedule %q; stop with Ctrl-C\n", sched)
	err = idx.RefreshOn(ctx, sched, src, func(s summaries.Stats, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "refresh failed: %v\n", err)
			return
		}
		if err := report(s); err != nil {
			fmt.Fprintf(stderr, "refresh: %v\n", err)
		}
	})
	if ctx.Err() != nil {
		return nil // stopped by the user
	}
	return err
}

// newSummaryModel builds the model client from the local settings.
func newSummaryModel(local *config.Local) (llm.Model, error) {
	lc, err := local.Model.LLM()
	if err != nil {
		return nil, err
	}
	c, err := llm.NewClient(lc)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// printSummaryStats prints the final counts of a build or refresh.
func printSummaryStats(w io.Writer, s summaries.Stats, withModel, modelSummaries bool) {
	mode := "model summaries"
	switch {
	case !withModel && modelSummaries:
		mode = "no model configured: outline-only summaries, plus cached model summaries"
	case !withModel:
		mode = "no model configured: outline-only summaries"
	}
	fmt.Fprintf(w, "%d files (%d parsed, %d removed); %d summarised by the model, %d cache hits; "+
		"tokens %d (prompt %d, completion %d); %s; %s\n",
		s.Files, s.Parsed, s.Removed, s.Summarised, s.CacheHits, s.Tokens.Total(), s.Tokens.PromptTokens,
		s.Tokens.CompletionTokens, mode, s.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "outlines: %d by tree-sitter, %d by ctags, %d by the plain line fallback\n",
		s.Outlines[summaries.SourceTreeSitter], s.Outlines[summaries.SourceCtags], s.Outlines[summaries.SourcePlain])
}

// progressBar draws one line on stderr, at most ten times a second, and
// only when stderr is a terminal: a log file or pipe gets no \r redraws.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	off   bool
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	return &progressBar{w: w, off: !ok || !isatty.IsTerminal(f.Fd())}
}

func (p *progressBar) update(stage string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.off {
		return
	}
	if done < total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	const width = 30
	n := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r%-9s [%s%s] %d/%d", stage, strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
	p.drawn = true
}

func (p *progressBar) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// storeFilesIn returns the repo-relative paths of the SQLite database dsn
// names and its journal files (store.FilesOf) when it lies inside the
// checkout dir; nothing for PostgreSQL or a database elsewhere.
func storeFilesIn(dir, dsn string) []string {
	var rel []string
	for _, f := range store.FilesOf(dsn) {
		if r := pathIn(dir, f); r != "" {
			rel = append(rel, r)
		}
	}
	return rel
}
