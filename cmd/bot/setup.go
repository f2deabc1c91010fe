package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
)

type setupOptions struct {
	manifest, webhookURL, name, org string
	listen, out, githubURL, apiURL  string
	forge                           string
	gitea                           giteaSetup
}

// newSetupCmd builds `bot setup`: register the GitHub App from app.yml
// through GitHub's App manifest flow and save what `bot serve` needs.
func newSetupCmd() *cobra.Command {
	var o setupOptions
	cmd := &cobra.Command{
		Use:   "setup --webhook-url https://HOST/webhook  |  setup --forge gitea --gitea-url URL --token-file F --repo O/R --webhook-url https://HOST/webhook/gitea",
		Short: "register the GitHub App from app.yml (GitHub's manifest flow) and save its id, secret and key",
		Long: "setup serves a local page whose button sends app.yml, as a GitHub App manifest, to GitHub. After you\n" +
			"confirm on GitHub, GitHub sends the browser back to this command, which exchanges the one-time code\n" +
			"for the App's id, webhook secret and private key and writes them to --out as " + config.AppEnvFile + "\n" +
			"(read by `bot serve` through ISSUESMITH_CONFIG_FILE) and " + config.AppKeyFile + ", both mode 0600.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			switch o.forge {
			case "github":
				return runSetup(ctx, cmd.OutOrStdout(), o)
			case "gitea":
				return runSetupGitea(ctx, cmd.OutOrStdout(), o)
			}
			return usageErr("setup: --forge must be github or gitea, not %q", o.forge)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.manifest, "manifest", "app.yml", "the App manifest (Probot-style app.yml)")
	f.StringVar(&o.webhookURL, "webhook-url", "", "public URL GitHub delivers webhooks to: your server's address + /webhook")
	f.StringVar(&o.name, "name", "", "App name instead of app.yml's (unique on GitHub)")
	f.StringVar(&o.org, "org", "", "create the App under this organization instead of your account")
	f.StringVar(&o.listen, "listen", "127.0.0.1:3000", "address of the local page GitHub redirects back to")
	f.StringVar(&o.out, "out", ".", "folder to write "+config.AppEnvFile+" and "+config.AppKeyFile+" into")
	f.StringVar(&o.githubURL, "github-url", "https://github.com", "GitHub's web address (GitHub Enterprise Server: https://HOST)")
	f.StringVar(&o.apiURL, "api-url", "", "GitHub's REST API root (default https://api.github.com/, or GITHUB-URL/api/v3/)")
	f.StringVar(&o.forge, "forge", "github", "github (register the App) or gitea (a Gitea or Forgejo server: check the token, make the webhooks)")
	f.StringVar(&o.gitea.url, "gitea-url", "", "with --forge gitea: the server's root URL, e.g. https://gitea.example.com/")
	f.StringVar(&o.gitea.tokenFile, "token-file", "", "with --forge gitea: the file holding the bot user's access token")
	f.StringSliceVar(&o.gitea.repos, "repo", nil, "with --forge gitea: owner/name of a repository to serve (repeat the flag)")
	return cmd
}

func runSetup(ctx context.Context, out io.Writer, o setupOptions) error {
	m, err := setupManifest(o)
	if err != nil {
		return err
	}
	apiURL, err := setupAPIURL(o)
	if err != nil {
		return err
	}
	files, err := config.NewAppFiles(o.out)
	if err != nil {
		return usageErr("setup: %v", err)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return usageErr("setup: listen on --listen %s: %v", o.listen, err)
	}
	m.RedirectURL = "http://" + browserAddr(ln.Addr()) + ghapp.CallbackPath
	flow, err := ghapp.NewManifestFlow(ghapp.ManifestFlowConfig{Manifest: m, WebURL: o.githubURL, Org: o.org,
		APIURL: apiURL, HTTPClient: &http.Client{Timeout: 30 * time.Second},
		Save: func(_ context.Context, c *ghapp.AppCredentials) error {
			return files.Write(config.AppSettings{Name: c.Name, HTMLURL: c.HTMLURL, ID: c.ID, PrivateKey: c.PrivateKey,
				WebhookSecret: c.WebhookSecret, APIURL: apiURL, BotLogin: c.BotLogin(),
				PublicURL: publicURLOf(m.HookAttributes.URL), ClientID: c.ClientID, ClientSecret: c.ClientSecret})
		}})
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: flow, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }() // ends with Shutdown below
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // lets the last page reach the browser
	}()
	fmt.Fprintf(out, "App manifest from %s: name %q, webhook %s, permissions %s.\n", o.manifest, m.Name,
		m.HookAttributes.URL, m.PermissionList())
	fmt.Fprintf(out, "Open http://%s/ in your browser and press the button. GitHub asks you to confirm,\n"+
		"creates the App and sends you back here. Waiting (Ctrl-C to stop)...\n", browserAddr(ln.Addr()))
	creds, err := flow.Wait(ctx)
	if err != nil {
		return fmt.Errorf("setup: %w; nothing was written", err)
	}
	printNextSteps(out, creds, files)
	return nil
}

// setupManifest reads the manifest and applies the flags.
func setupManifest(o setupOptions) (*ghapp.Manifest, error) {
	data, err := os.ReadFile(o.manifest)
	if err != nil {
		return nil, usageErr("setup: read the App manifest: %v (run in the issuesmith checkout or pass --manifest PATH)", err)
	}
	m, err := ghapp.ParseManifest(data)
	if err != nil {
		return nil, usageErr("setup: %s: %v", o.manifest, err)
	}
	if o.name != "" {
		m.Name = o.name
	}
	if o.webhookURL != "" {
		m.HookAttributes.URL = o.webhookURL
	} else if m.ExampleWebhook() {
		return nil, usageErr("setup: pass --webhook-url https://YOUR-HOST/webhook: %s still has the example address %s",
			o.manifest, m.HookAttributes.URL)
	}
	if err := m.Validate(); err != nil {
		return nil, usageErr("setup: %v", err)
	}
	if public := publicURLOf(m.HookAttributes.URL); public != "" {
		m.CallbackURLs = append(m.CallbackURLs, public+sessionsCallback) // signing in to the sessions page
	}
	return m, nil
}

// sessionsCallback is the sessions page's OAuth callback under the public URL.
const sessionsCallback = "/sessions/callback"

// publicURLOf is the bot's public address for its webhook URL
// (https://HOST/webhook → https://HOST), "" when the URL does not end in
// /webhook.
func publicURLOf(webhookURL string) string {
	public, ok := strings.CutSuffix(strings.TrimSuffix(webhookURL, "/"), "/webhook")
	if !ok {
		return ""
	}
	return public
}

// setupAPIURL is --api-url, or the API root that belongs to --github-url.
func setupAPIURL(o setupOptions) (string, error) {
	if o.apiURL != "" {
		return o.apiURL, nil
	}
	u, err := ghapp.APIURLFor(o.githubURL)
	if err != nil {
		return "", usageErr("setup: --github-url %v", err)
	}
	return u, nil
}

// browserAddr is the listener's address as a browser reaches it: an
// unspecified host (":3000") becomes the loopback address.
func browserAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}

// printNextSteps tells the user what was written and what comes next; it
// never prints a secret or the key.
func printNextSteps(out io.Writer, c *ghapp.AppCredentials, f *config.AppFiles) {
	fmt.Fprintf(out, "\nRegistered the GitHub App %q (id %d): %s\n", c.Name, c.ID, c.HTMLURL)
	fmt.Fprintf(out, "Wrote %s (app id, webhook secret, API URL, bot login; mode 0600)\n", f.Env)
	fmt.Fprintf(out, "Wrote %s (the App's private key; mode 0600). Keep both out of git.\n", f.Key)
	fmt.Fprintf(out, "\nNext:\n")
	fmt.Fprintf(out, "  1. Install the App on the repositories it may work on: %s/installations/new\n",
		strings.TrimSuffix(c.HTMLURL, "/"))
	fmt.Fprintf(out, "  2. Create the trigger label in those repositories: \"issuesmith\", or the one their\n"+
		"     .github/issuesmith.yml names.\n")
	fmt.Fprintf(out, "  3. Add the model settings (%sMODEL_NAME, %sMODEL_API_KEY, ...; docs/configure.md) to %s\n"+
		"     or the environment, and start the server:\n", config.EnvPrefix, config.EnvPrefix, f.Env)
	fmt.Fprintf(out, "       %s=%s bot serve\n", config.FileVar, f.Env)
}
