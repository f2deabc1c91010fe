package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files `bot setup` writes: the server settings of a newly registered App
// and its private key.
const (
	AppEnvFile = "issuesmith.env"
	AppKeyFile = "issuesmith.private-key.pem"
)

// AppSettings are what GitHub hands back when an App is created from its
// manifest, as the server reads them.
type AppSettings struct {
	Name, HTMLURL string
	ID            int64
	PrivateKey    []byte
	WebhookSecret string
	// APIURL is GitHub's REST root the App was created on.
	APIURL string
	// BotLogin is the App's bot user, "<slug>[bot]".
	BotLogin string
	// PublicURL, ClientID and ClientSecret turn the sessions page on
	// (written when set).
	PublicURL, ClientID, ClientSecret string
}

// AppFiles are the two files a registration writes; neither may exist
// beforehand (a registration never overwrites credentials).
type AppFiles struct{ Env, Key string }

// NewAppFiles names the files in dir and refuses when either exists.
func NewAppFiles(dir string) (*AppFiles, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("folder %q: %w", dir, err)
	}
	f := &AppFiles{Env: filepath.Join(abs, AppEnvFile), Key: filepath.Join(abs, AppKeyFile)}
	for _, p := range []string{f.Env, f.Key} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s already exists; move it away or pass another --out (setup never overwrites)", p)
		}
	}
	return f, nil
}

// Write stores the key and the settings (an env file FileVar can point at),
// mode 0600; on any failure it removes what it wrote, so a failed
// registration leaves nothing behind.
func (f *AppFiles) Write(s AppSettings) error {
	p := EnvPrefix
	env := fmt.Sprintf("# issuesmith server settings written by `bot setup` for the GitHub App %q (%s).\n"+
		"# Private: holds the webhook secret. Add the %sMODEL_* settings, then run\n"+
		"#   %s=%s bot serve\n"+
		"%sAPP_ID=%d\n%sPRIVATE_KEY_FILE=%s\n%sWEBHOOK_SECRET=%s\n%sGITHUB_URL=%s\n%sBOT_LOGIN=%s\n",
		s.Name, s.HTMLURL, p, FileVar, f.Env,
		p, s.ID, p, f.Key, p, s.WebhookSecret, p, s.APIURL, p, s.BotLogin)
	for _, kv := range [][2]string{{"PUBLIC_URL", s.PublicURL}, {"OAUTH_CLIENT_ID", s.ClientID}, {"OAUTH_CLIENT_SECRET", s.ClientSecret}} {
		if kv[1] != "" {
			env += p + kv[0] + "=" + kv[1] + "\n"
		}
	}
	if strings.ContainsAny(s.WebhookSecret+s.BotLogin+f.Key+s.APIURL+s.PublicURL+s.ClientID+s.ClientSecret, "\r\n") {
		return errors.New("save app settings: a value holds a line break")
	}
	if err := os.MkdirAll(filepath.Dir(f.Key), 0o700); err != nil {
		return fmt.Errorf("save app settings: create the --out folder: %w", err)
	}
	if err := writeNew(f.Key, s.PrivateKey); err != nil {
		return err
	}
	if err := writeNew(f.Env, []byte(env)); err != nil {
		_ = os.Remove(f.Key)
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
