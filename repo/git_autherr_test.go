package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/repo/gittest"
)

// authFailure classifies the stderr git itself prints, produced here by a
// real git against the gittest server: a wrong token, no token, and a push a
// hook refuses in a repository whose name and URL are full of 401 and 403.
func TestAuthFailureOnRealGitOutput(t *testing.T) {
	t.Parallel()
	const good = "ghs_good_token_0123456789"
	srv := gittest.NewServer(t, gittest.WithToken(good))
	url := srv.Seed(t, "acme/svc-401-403", map[string]string{"a.txt": "a\n"})
	srv.RejectPushes(t, "acme/svc-401-403", "error: GH006: Protected branch update failed for refs/heads/main (403).")
	ctx := t.Context()

	for name, tok := range map[string]string{"wrong token": "ghs_wrong_token_0123456789", "no token": ""} {
		res, err := runGit(ctx, t.TempDir(), tok, "ls-remote", url)
		if err == nil {
			t.Fatalf("%s: ls-remote succeeded", name)
		}
		if !authFailure(res.stderr) {
			t.Errorf("%s: not read as an authentication failure:\n%s", name, res.stderr)
		}
	}

	work := filepath.Join(t.TempDir(), "w")
	if _, err := runGit(ctx, "", good, "clone", "--quiet", url, work); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "b.txt"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "b"}} {
		if _, err := runGit(ctx, work, "", args...); err != nil {
			t.Fatal(err)
		}
	}
	res, err := runGit(ctx, work, good, "push", "--porcelain", "origin", "HEAD:refs/heads/main")
	if err == nil {
		t.Fatal("the hook did not refuse the push")
	}
	if !strings.Contains(res.stderr, "403") {
		t.Fatalf("the refusal should carry 403 in its text for this test to mean anything:\n%s", res.stderr)
	}
	if authFailure(res.stderr) {
		t.Errorf("a hook's refusal in repository svc-401-403 read as an authentication failure:\n%s", res.stderr)
	}
}

// GitHub's own lines, as git prints them for github.com remotes (GitHub's
// messages for a bad token, a token without write access, a protected
// branch and a missing repository).
func TestAuthFailureOnGitHubMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		stderr string
		auth   bool
	}{
		{"remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/acme/svc-403.git/'", true},
		{"remote: Permission to acme/svc-403.git denied to x-access-token.\nfatal: unable to access 'https://github.com/acme/svc-403.git/': The requested URL returned error: 403", true},
		{"fatal: could not read Username for 'https://github.com': terminal prompts disabled", true},
		{"remote: error: GH006: Protected branch update failed for refs/heads/main.\nremote: error: At least 1 approving review is required by reviewers with write access.\nTo https://github.com/acme/svc-403.git\n ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs to 'https://github.com/acme/svc-403.git'", false},
		{"remote: Repository not found.\nfatal: repository 'https://github.com/acme/svc-401.git/' not found", false},
		{"fatal: unable to access 'https://127.0.0.1:40171/acme/app.git/': Failed to connect to 127.0.0.1 port 40171 after 0 ms: Couldn't connect to server", false},
		{"fatal: unable to access 'https://github.com/acme/app.git/': The requested URL returned error: 500", false},
	} {
		if got := authFailure(c.stderr); got != c.auth {
			t.Errorf("authFailure = %v, want %v for:\n%s", got, c.auth, c.stderr)
		}
	}
}
