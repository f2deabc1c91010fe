package main

import (
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/server"
)

// newServeCmd builds `bot serve`: the GitHub App. Configuration comes from
// the environment and ISSUESMITH_CONFIG_FILE (config.ParseServer); the two
// flags are shorthands for the settings most often changed by hand.
func newServeCmd() *cobra.Command {
	var listen, file string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the GitHub App: /webhook, /healthz, /readyz, /metrics (config from ISSUESMITH_* variables)",
		Long: "serve runs the GitHub App: /webhook, /healthz, /readyz and /metrics on ISSUESMITH_LISTEN_ADDR (:8080).\n" +
			"Settings come from ISSUESMITH_* environment variables, or from a file of NAME=value lines\n" +
			"named by ISSUESMITH_CONFIG_FILE or --config (real variables win over the file; --listen wins over\n" +
			"both). Required: ISSUESMITH_APP_ID, ISSUESMITH_PRIVATE_KEY_FILE (or ISSUESMITH_PRIVATE_KEY),\n" +
			"ISSUESMITH_WEBHOOK_SECRET and ISSUESMITH_MODEL_NAME; `bot setup` writes all but the model's into\n" +
			"issuesmith.env. The database (ISSUESMITH_DATABASE_URL) and the data directory (ISSUESMITH_DATA_DIR)\n" +
			"default into the state directory: ISSUESMITH_STATE_DIR, systemd's $STATE_DIRECTORY, else\n" +
			"~/.local/state/issuesmith. docs/configure-reference.md lists every variable with its default.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := serveConfig(os.Environ(), file, listen)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: cfg.SlogLevel()}))
			srv, err := server.New(ctx, cfg, log, server.Tuning{})
			if err != nil {
				return err
			}
			return srv.Run(ctx)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on, host:port or :port (overrides ISSUESMITH_LISTEN_ADDR)")
	cmd.Flags().StringVar(&file, "config", "", "file of NAME=value settings (overrides ISSUESMITH_CONFIG_FILE; real variables still win)")
	return cmd
}

// serveConfig is the server's configuration from environ and the serve
// flags.
func serveConfig(environ []string, file, listen string) (*config.Server, error) {
	return config.ParseServer(serveEnviron(environ, file, listen))
}

// serveEnviron is environ with the serve flags applied: --config names the
// settings file, --listen replaces the listen address.
func serveEnviron(environ []string, file, listen string) []string {
	out := slices.Clone(environ)
	if file != "" {
		out = append(out, config.FileVar+"="+file)
	}
	if listen != "" {
		out = append(out, config.EnvPrefix+"LISTEN_ADDR="+listen)
	}
	return out
}
