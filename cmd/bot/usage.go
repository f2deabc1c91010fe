package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/store"
)

// newUsageCmd builds `bot usage`: what the model calls of bot serve cost,
// from the database's usage ledger, grouped one way.
func newUsageCmd() *cobra.Command { return newUsageCmdWith(os.Environ, time.Now) }

func newUsageCmdWith(environ func() []string, now func() time.Time) *cobra.Command {
	var dsn, since, by string
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "print the model usage and cost bot serve charged, by repository, installation, model or role",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := parseSince(since)
			if err != nil {
				return fmt.Errorf("--since: %w", err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if dsn == "" {
				var err error
				if dsn, err = settingsDB(environ()); err != nil {
					return err
				}
			}
			s, err := store.Open(ctx, dsn)
			if err != nil {
				return err
			}
			defer s.Close()
			rows, err := s.UsageReport(ctx, now().Add(-d), by)
			if err != nil {
				return err
			}
			return printUsage(cmd.OutOrStdout(), by, rows)
		},
	}
	cmd.Flags().StringVar(&since, "since", "30d", "how far back: days (30d) or a Go duration (12h)")
	cmd.Flags().StringVar(&by, "by", "repo", "group by repo, installation, model or role")
	cmd.Flags().StringVar(&dsn, "database", "", "database: a SQLite file path or a postgres:// URL "+
		"(default: ISSUESMITH_DATABASE_URL, also from ISSUESMITH_CONFIG_FILE, as bot serve reads it)")
	return cmd
}

// parseSince reads "30d" as 30 days, anything else as a Go duration.
func parseSince(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 {
			return 0, fmt.Errorf("%q is not a number of days like 30d", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration like 30d or 12h", s)
	}
	return d, nil
}

// printUsage writes the table: one line per group and a total.
func printUsage(w io.Writer, by string, rows []store.UsageRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcalls\tprompt\tcached\tcompletion\tcost (USD)\t\n", strings.ToUpper(by))
	var total store.UsageRow
	line := func(r store.UsageRow) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.4f\t\n", r.Key, r.Calls, tokens(r.PromptTokens), tokens(r.CachedTokens),
			tokens(r.CompletionTokens), r.Cost)
	}
	for _, r := range rows {
		line(r)
		total.Calls += r.Calls
		total.PromptTokens += r.PromptTokens
		total.CachedTokens += r.CachedTokens
		total.CompletionTokens += r.CompletionTokens
		total.Cost += r.Cost
	}
	total.Key = "total"
	line(total)
	return tw.Flush()
}

func tokens(n int64) string {
	return strings.TrimSuffix(budget.Amount(budget.KindTokens, float64(n)), " tokens")
}
