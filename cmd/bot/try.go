package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/trydemo"
	"github.com/issuesmith/issuesmith/work"
)

func newTryCmd() *cobra.Command {
	var listen, out string
	cmd := &cobra.Command{
		Use:   "try",
		Short: "Run the whole flow on a sample repository without a model key or GitHub, and show it as a web page",
		Long: "Run the real bot serve code from label to draft pull request on a small sample repository, against an\n" +
			"in-process fake GitHub and a real git server on loopback, with a scripted model conversation written\n" +
			"for that sample (no key, no network). Then show the issue thread (spec, plan, progress), the pull\n" +
			"request and its diff as GitHub would, on a local web page (--listen), or write the page (--out).\n" +
			"Needs git; bubblewrap is used when installed, as in bot serve.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTry(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), listen, out)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8765", "address to serve the page on")
	cmd.Flags().StringVar(&out, "out", "", "write the page to this file (- for stdout) and exit instead of serving it")
	return cmd
}

func runTry(ctx context.Context, stdout, stderr io.Writer, listen, out string) error {
	start := time.Now()
	res, err := trydemo.Run(ctx, trydemo.Options{
		Log:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Progress: func(ev work.Event) { fmt.Fprintf(stderr, "%5.1fs  %s\n", time.Since(start).Seconds(), ev.Detail) },
	})
	if err != nil {
		return err
	}
	page, err := trydemo.Render(res)
	if err != nil {
		return err
	}
	switch out {
	case "":
	case "-":
		_, err = stdout.Write(page)
		return err
	default:
		if err := os.WriteFile(out, page, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", out)
		return nil
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return usageErr("--listen %s: %v", listen, err)
	}
	fmt.Fprintf(stdout, "The run is over; see it at http://%s/ (Ctrl-C to stop)\n", l.Addr())
	hs := &http.Server{Handler: trydemo.Handler(page), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(l); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
