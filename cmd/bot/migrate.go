package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/store"
)

// newMigrateCmd builds `bot migrate`: bring the database schema (ours and
// River's job tables) up to date, then exit. `bot serve` does the same at
// start-up; run this on its own before rolling out several replicas.
func newMigrateCmd() *cobra.Command { return newMigrateCmdWith(os.Environ) }

// newMigrateCmdWith builds the command reading ISSUESMITH_DATABASE_URL (and
// ISSUESMITH_CONFIG_FILE) from environ when --database is not given, so it
// migrates the database `bot serve` opens (tests pass their own environ).
func newMigrateCmdWith(environ func() []string) *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "apply database migrations (SQLite file or PostgreSQL URL) and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Minute)
			defer cancel()
			if dsn == "" {
				var err error
				if dsn, err = settingsDB(environ()); err != nil {
					return err
				}
			}
			return runMigrate(ctx, cmd, dsn)
		},
	}
	cmd.Flags().StringVar(&dsn, "database", "", "database: a SQLite file path or a postgres:// URL "+
		"(default: ISSUESMITH_DATABASE_URL, also from ISSUESMITH_CONFIG_FILE, as bot serve reads it; else "+store.DefaultDSN+" in the state directory)")
	return cmd
}

func runMigrate(ctx context.Context, cmd *cobra.Command, dsn string) error {
	s, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Migrate(ctx)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "database: %s\nschema version: %d (applied now: %v)\nriver migrations applied now: %v\n",
		s.Dialect(), res.Version, res.Applied, res.RiverApplied)
	return nil
}
