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
	var listen, out, forge string
	var sessions bool
	cmd := &cobra.Command{
		Use:   "try",
		Short: "Run the whole flow on a sample repository without a model key or GitHub, and show it as a web page",
		Long: "Run the real bot serve code from label to draft pull request on a small sample repository, against an\n" +
			"in-process fake GitHub and a real git server on loopback, with a scripted model conversation written\n" +
			"for that sample (no key, no network). Then show the issue thread (spec, plan, progress), the pull\n" +
			"request and its diff as GitHub would, on a local web page (--listen), or write the page (--out).\n" +
			"With --sessions, bot serve keeps running with its sessions page on, and two links sign you in to it\n" +
			"through the fake GitHub: as octocat, who can read the repository and sees the run, and as mallory,\n" +
			"who cannot and is refused it.\n" +
			"With --forge gitea, the same flow on an in-process fake Gitea instead, bot serve serving it alone:\n" +
			"the label and the plan's approval (its box ticked in the plan comment) arrive as Gitea's signed\n" +
			"deliveries, the pull request is a WIP: title until CI's commit statuses pass.\n" +
			"Needs git; bubblewrap is used when installed, as in bot serve.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			switch {
			case forge != trydemo.ForgeGitHub && forge != trydemo.ForgeGitea:
				return usageErr("--forge %s: github or gitea", forge)
			case forge == trydemo.ForgeGitea && sessions:
				return usageErr("--sessions signs people in through the fake GitHub: it goes with --forge github only")
			}
			return runTry(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), tryShow{listen: listen, out: out, sessions: sessions, forge: forge})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8765", "address to serve the page on")
	cmd.Flags().StringVar(&forge, "forge", trydemo.ForgeGitHub,
		"the forge the demo plays: github, or gitea (a fake Gitea; bot serve serving it alone)")
	cmd.Flags().StringVar(&out, "out", "", "write the page to this file (- for stdout) and exit instead of serving it")
	cmd.Flags().BoolVar(&sessions, "sessions", false,
		"then keep bot serve running with its /sessions page and print links signing in as someone who can read the repository and someone who cannot (Ctrl-C to stop)")
	return cmd
}

// tryShow is how the run is shown: the page on listen, or written to out;
// with sessions, the sessions page's sign-in links too, until Ctrl-C.
// forge is the forge the run plays.
type tryShow struct {
	listen, out, forge string
	sessions           bool
}

func runTry(ctx context.Context, stdout, stderr io.Writer, show tryShow) error {
	start := time.Now()
	opts := trydemo.Options{
		Log:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Progress: func(ev work.Event) { fmt.Fprintf(stderr, "%5.1fs  %s\n", time.Since(start).Seconds(), ev.Detail) },
		Forge:    show.forge,
	}
	present := func(ctx context.Context, res *trydemo.Result) error {
		page, err := trydemo.Render(res)
		if err != nil {
			return err
		}
		return show.page(ctx, stdout, stderr, page, res)
	}
	if show.sessions {
		opts.Sessions = present // bot serve stops when it returns
		_, err := trydemo.Run(ctx, opts)
		return err
	}
	res, err := trydemo.Run(ctx, opts)
	if err != nil {
		return err
	}
	return present(ctx, res)
}

// page writes or serves the page; with sessions it prints the sign-in
// links and waits for ctx's end.
func (show tryShow) page(ctx context.Context, stdout, stderr io.Writer, page []byte, res *trydemo.Result) error {
	var l net.Listener
	switch show.out {
	case "":
		var err error
		if l, err = net.Listen("tcp", show.listen); err != nil {
			return usageErr("--listen %s: %v", show.listen, err)
		}
		fmt.Fprintf(stdout, "The run is over; see it at http://%s/ (Ctrl-C to stop)\n", l.Addr())
	case "-":
		if _, err := stdout.Write(page); err != nil {
			return err
		}
	default:
		if err := os.WriteFile(show.out, page, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", show.out)
	}
	if show.sessions {
		links := stdout
		if show.out == "-" {
			links = stderr // stdout is the page
		}
		fmt.Fprintf(links, "bot serve runs on with its sessions page, %s; sign in through the fake GitHub:\n", res.SessionsURL)
		for _, si := range res.SignIns {
			can := "can read " + res.Repo
			if !si.CanRead {
				can = "cannot read it"
			}
			fmt.Fprintf(links, "  as %s (%s): %s\n", si.Login, can, si.URL)
		}
		if l == nil {
			fmt.Fprintln(links, "Ctrl-C to stop")
			<-ctx.Done()
			return nil
		}
	}
	if l == nil {
		return nil
	}
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
