package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
)

// Files `bot setup` writes into --out.
const (
	setupEnvFile = "issuesmith.env"
	setupKeyFile = "issuesmith.private-key.pem"
)

type setupOptions struct {
	manifest, webhookURL, name, org string
	listen, out, githubURL, apiURL  string
}

// newSetupCmd builds `bot setup`: register the GitHub App from app.yml
// through GitHub's App manifest flow and save what `bot serve` needs.
func newSetupCmd() *cobra.Command {
	var o setupOptions
	cmd := &cobra.Command{
		Use:   "setup --webhook-url https://HOST/webhook",
		Short: "register the GitHub App from app.yml (GitHub's manifest flow) and save its id, secret and key",
		Long: "setup serves a local page whose button sends app.yml, as a GitHub App manifest, to GitHub. After you\n" +
			"confirm on GitHub, GitHub sends the browser back to this command, which exchanges the one-time code\n" +
			"for the App's id, webhook secret and private key and writes them to --out as " + setupEnvFile + "\n" +
			"(read by `bot serve` through ISSUESMITH_CONFIG_FILE) and " + setupKeyFile + ", both mode 0600.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runSetup(ctx, cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.manifest, "manifest", "app.yml", "the App manifest (Probot-style app.yml)")
	f.StringVar(&o.webhookURL, "webhook-url", "", "public URL GitHub delivers webhooks to: your server's address + /webhook")
	f.StringVar(&o.name, "name", "", "App name instead of app.yml's (unique on GitHub)")
	f.StringVar(&o.org, "org", "", "create the App under this organization instead of your account")
	f.StringVar(&o.listen, "listen", "127.0.0.1:3000", "address of the local page GitHub redirects back to")
	f.StringVar(&o.out, "out", ".", "folder to write "+setupEnvFile+" and "+setupKeyFile+" into")
	f.StringVar(&o.githubURL, "github-url", "https://github.com", "GitHub's web address (GitHub Enterprise Server: https://HOST)")
	f.StringVar(&o.apiURL, "api-url", "", "GitHub's REST API root (default https://api.github.com/, or GITHUB-URL/api/v3/)")
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
	files, err := newSetupFiles(o.out)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return usageErr("setup: listen on --listen %s: %v", o.listen, err)
	}
	m.RedirectURL = "http://" + browserAddr(ln.Addr()) + ghapp.CallbackPath
	flow, err := ghapp.NewManifestFlow(ghapp.ManifestFlowConfig{Manifest: m, WebURL: o.githubURL, Org: o.org,
		APIURL: apiURL, HTTPClient: &http.Client{Timeout: 30 * time.Second},
		Save: func(_ context.Context, c *ghapp.AppCredentials) error { return files.write(c, apiURL) }})
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
		m.HookAttributes.URL, permissionList(m.DefaultPermissions))
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
	} else if exampleHost(m.HookAttributes.URL) {
		return nil, usageErr("setup: pass --webhook-url https://YOUR-HOST/webhook: %s still has the example address %s",
			o.manifest, m.HookAttributes.URL)
	}
	if err := m.Validate(); err != nil {
		return nil, usageErr("setup: %v", err)
	}
	return m, nil
}

// exampleHost reports a URL on a domain reserved for examples (RFC 2606).
func exampleHost(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, d := range []string{"example.com", "example.net", "example.org", "example"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// setupAPIURL is --api-url, or the API root that belongs to --github-url.
func setupAPIURL(o setupOptions) (string, error) {
	if o.apiURL != "" {
		return o.apiURL, nil
	}
	u, err := url.Parse(o.githubURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", usageErr("setup: --github-url %q is not an absolute http(s) URL", o.githubURL)
	}
	if strings.EqualFold(u.Host, "github.com") {
		return "https://api.github.com/", nil
	}
	return strings.TrimSuffix(o.githubURL, "/") + "/api/v3/", nil
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

func permissionList(perms map[string]string) string {
	parts := make([]string, 0, len(perms))
	for k, v := range perms {
		parts = append(parts, k+":"+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// printNextSteps tells the user what was written and what comes next; it
// never prints a secret or the key.
func printNextSteps(out io.Writer, c *ghapp.AppCredentials, f *setupFiles) {
	fmt.Fprintf(out, "\nRegistered the GitHub App %q (id %d): %s\n", c.Name, c.ID, c.HTMLURL)
	fmt.Fprintf(out, "Wrote %s (app id, webhook secret, API URL, bot login; mode 0600)\n", f.env)
	fmt.Fprintf(out, "Wrote %s (the App's private key; mode 0600). Keep both out of git.\n", f.key)
	fmt.Fprintf(out, "\nNext:\n")
	fmt.Fprintf(out, "  1. Install the App on the repositories it may work on: %s/installations/new\n",
		strings.TrimSuffix(c.HTMLURL, "/"))
	fmt.Fprintf(out, "  2. Create the trigger label in those repositories: \"issuesmith\", or the one their\n"+
		"     .github/issuesmith.yml names.\n")
	fmt.Fprintf(out, "  3. Add the model settings (%sMODEL_NAME, %sMODEL_API_KEY, ...; README \"Configure\") to %s\n"+
		"     or the environment, and start the server:\n", config.EnvPrefix, config.EnvPrefix, f.env)
	fmt.Fprintf(out, "       %s=%s bot serve\n", config.FileVar, f.env)
}

// setupFiles are the two files setup writes; neither may exist beforehand.
type setupFiles struct{ env, key string }

func newSetupFiles(dir string) (*setupFiles, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, usageErr("setup: --out %q: %v", dir, err)
	}
	f := &setupFiles{env: filepath.Join(abs, setupEnvFile), key: filepath.Join(abs, setupKeyFile)}
	for _, p := range []string{f.env, f.key} {
		if _, err := os.Lstat(p); err == nil {
			return nil, usageErr("setup: %s already exists; move it away or pass another --out (setup never overwrites)", p)
		}
	}
	return f, nil
}

// write stores the key and the settings, mode 0600; on any failure it
// removes what it wrote, so a failed setup leaves nothing behind.
func (f *setupFiles) write(c *ghapp.AppCredentials, apiURL string) error {
	p := config.EnvPrefix
	env := fmt.Sprintf("# issuesmith server settings written by `bot setup` for the GitHub App %q (%s).\n"+
		"# Private: holds the webhook secret. Add the %sMODEL_* settings, then run\n"+
		"#   %s=%s bot serve\n"+
		"%sAPP_ID=%d\n%sPRIVATE_KEY_FILE=%s\n%sWEBHOOK_SECRET=%s\n%sGITHUB_URL=%s\n%sBOT_LOGIN=%s\n",
		c.Name, c.HTMLURL, p, config.FileVar, f.env,
		p, c.ID, p, f.key, p, c.WebhookSecret, p, apiURL, p, c.BotLogin())
	if strings.ContainsAny(c.WebhookSecret+c.Slug+f.key+apiURL, "\r\n") {
		return errors.New("save app settings: a value holds a line break")
	}
	if err := os.MkdirAll(filepath.Dir(f.key), 0o700); err != nil {
		return fmt.Errorf("save app settings: create the --out folder: %w", err)
	}
	if err := writeNew(f.key, c.PrivateKey); err != nil {
		return err
	}
	if err := writeNew(f.env, []byte(env)); err != nil {
		_ = os.Remove(f.key)
		return err
	}
	return nil
}

// writeNew creates path with mode 0600, refusing to replace a file.
func writeNew(path string, data []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("save app settings: %w", err)
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Chmod(0o600) // whatever the umask did
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("save app settings: write %s: %w", filepath.Base(path), err)
	}
	return nil
}
