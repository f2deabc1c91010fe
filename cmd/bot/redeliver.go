package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/redeliver"
	"github.com/issuesmith/issuesmith/store"
)

// newRedeliverCmd builds `bot redeliver`: one reconciliation pass over the
// App's webhook delivery log, with the settings `bot serve` reads.
func newRedeliverCmd() *cobra.Command { return newRedeliverCmdWith(os.Environ) }

// newRedeliverCmdWith reads the settings from environ (tests pass their own).
func newRedeliverCmdWith(environ func() []string) *cobra.Command {
	var (
		since time.Duration
		max   int
	)
	cmd := &cobra.Command{
		Use:   "redeliver [--since 2h] [--max 50]",
		Short: "ask GitHub to redeliver the webhook deliveries the bot missed (failed and not recorded)",
		Long: `redeliver reads the App's webhook delivery log back --since ago and asks GitHub to redeliver,
oldest first, each delivery that has no successful attempt and that the bot's database has not recorded
(for example everything answered 503 while the database was down). It reads the same settings as
bot serve (ISSUESMITH_APP_ID, the private key, ISSUESMITH_DATABASE_URL, ISSUESMITH_GITHUB_URL).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since <= 0 || max <= 0 {
				return usageErr("redeliver: --since and --max must be positive")
			}
			cfg, err := config.ParseServer(environ())
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
			defer cancel()
			return runRedeliver(ctx, cfg, since, max, cmd.OutOrStdout())
		},
	}
	cmd.Flags().DurationVar(&since, "since", 2*time.Hour, "how far back to read the delivery log (GitHub keeps about 3 days)")
	cmd.Flags().IntVar(&max, "max", 50, "most redeliveries to ask for in this pass")
	return cmd
}

func runRedeliver(ctx context.Context, cfg *config.Server, since time.Duration, max int, out io.Writer) error {
	key, err := cfg.Key()
	if err != nil {
		return err
	}
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: cfg.AppID, PrivateKey: key, BaseURL: cfg.GitHubURL, BotLogin: cfg.BotLogin})
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := redeliver.Pass(ctx, app, st, redeliver.Options{Since: time.Now().Add(-since), Max: max})
	fmt.Fprintf(out, "attempts read: %d\nfailed deliveries: %d (already recorded: %d)\nrecovered earlier: %d\n"+
		"redelivery asked: %d%s\nleft for the next pass: %d\n", rep.Attempts, rep.Failed, rep.Recorded, rep.Recovered,
		len(rep.Asked), listed(rep.Asked), rep.Deferred)
	if err != nil {
		return fmt.Errorf("redeliver: %w", err)
	}
	return nil
}

func listed(guids []string) string {
	if len(guids) == 0 {
		return ""
	}
	return " (" + strings.Join(guids, ", ") + ")"
}
