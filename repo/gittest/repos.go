package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/tb"
)

// Delete as a file's content in Commit removes the file.
const Delete = "\x00gittest:delete"

// Committer is the identity of commits made by the helpers.
const Committer = "Someone Else <someone@example.com>"

// CreateRepo creates an empty bare repository name ("owner/repo") whose
// default branch is main, accepting pushes over HTTP, and returns its URL.
func (s *Server) CreateRepo(t tb.TB, name string) string {
	t.Helper()
	dir := s.Dir(name)
	git(t, "", "init", "--quiet", "--bare", "--initial-branch=main", dir)
	git(t, dir, "config", "http.receivepack", "true")
	return s.RepoURL(name)
}

// Seed creates repository name with one commit on main holding files
// (path → content) and returns its URL.
func (s *Server) Seed(t tb.TB, name string, files map[string]string) string {
	t.Helper()
	url := s.CreateRepo(t, name)
	s.Commit(t, name, "main", files, "seed")
	return url
}

// Commit adds a commit to branch of repository name, as Committer, writing
// files (path → content; Delete removes a path), and returns its hash. A
// missing branch starts from main, or as the first commit of an empty
// repository. It bypasses HTTP, the token and RejectPushes.
func (s *Server) Commit(t tb.TB, name, branch string, files map[string]string, msg string) string {
	t.Helper()
	work := t.TempDir()
	git(t, "", "clone", "--quiet", s.Dir(name), work)
	switch {
	case s.Head(t, name, branch) != "":
		git(t, work, "checkout", "--quiet", branch)
	case s.Head(t, name, "main") != "":
		git(t, work, "checkout", "--quiet", "-b", branch, "origin/main")
	default:
		git(t, work, "checkout", "--quiet", "--orphan", branch)
	}
	for p, content := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if content == Delete {
			if err := os.Remove(full); err != nil {
				t.Fatalf("gittest: delete %s: %v", p, err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatalf("gittest: %v", err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatalf("gittest: %v", err)
		}
	}
	git(t, work, "add", "-A")
	git(t, work, "commit", "--quiet", "--allow-empty", "-m", msg)
	git(t, work, "push", "--quiet", "origin", "HEAD:refs/heads/"+branch)
	return strings.TrimSpace(git(t, work, "rev-parse", "HEAD"))
}

// Head returns branch's commit in repository name, "" if the branch does not
// exist.
func (s *Server) Head(t tb.TB, name, branch string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Dir = s.Dir(name)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Files returns every file on branch of repository name (path → content).
func (s *Server) Files(t tb.TB, name, branch string) map[string]string {
	t.Helper()
	dir := s.Dir(name)
	files := map[string]string{}
	list := git(t, dir, "ls-tree", "-r", "-z", "--name-only", "refs/heads/"+branch)
	for _, p := range strings.Split(list, "\x00") {
		if p != "" {
			files[p] = git(t, dir, "cat-file", "blob", "refs/heads/"+branch+":"+p)
		}
	}
	return files
}

// CommitInfo describes one commit as git prints it.
type CommitInfo struct {
	Hash      string
	Author    string // "Name <email>"
	Committer string
	Message   string // full message with trailers
	Parents   []string
}

// Log returns the commits of branch, newest first.
func (s *Server) Log(t tb.TB, name, branch string) []CommitInfo {
	t.Helper()
	out := git(t, s.Dir(name), "log", "--format=%H%x1f%an <%ae>%x1f%cn <%ce>%x1f%P%x1f%B%x1e", "refs/heads/"+branch)
	var log []CommitInfo
	for _, rec := range strings.Split(out, "\x1e") {
		f := strings.Split(strings.TrimLeft(rec, "\n"), "\x1f")
		if len(f) < 5 {
			continue
		}
		log = append(log, CommitInfo{Hash: f[0], Author: f[1], Committer: f[2],
			Parents: strings.Fields(f[3]), Message: strings.TrimRight(f[4], "\n")})
	}
	return log
}

// RejectPushes installs a pre-receive hook in repository name that refuses
// every push over HTTP with message, as a protected branch would.
func (s *Server) RejectPushes(t tb.TB, name, message string) {
	t.Helper()
	hook := filepath.Join(s.Dir(name), "hooks", "pre-receive")
	script := "#!/bin/sh\n[ \"$GITTEST_ALLOW\" = 1 ] && exit 0\necho '" +
		strings.ReplaceAll(message, "'", "") + "' >&2\nexit 1\n"
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatalf("gittest: %v", err)
	}
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatalf("gittest: %v", err)
	}
}

// git runs the git CLI for the helpers, failing the test on error.
func git(t tb.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(procenv.Scrubbed(), "GIT_CONFIG_NOSYSTEM=1", "GITTEST_ALLOW=1", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Someone Else", "GIT_AUTHOR_EMAIL=someone@example.com",
		"GIT_COMMITTER_NAME=Someone Else", "GIT_COMMITTER_EMAIL=someone@example.com")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gittest: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// ImportDir commits every file under src (a directory outside the server,
// read in place, its .gitignore files honoured) as one commit on branch of
// repository name, creating the repository if needed, and returns the
// commit. It is meant for big fixtures such as a copy of GOROOT/src.
func (s *Server) ImportDir(t tb.TB, name, branch, src string) string {
	t.Helper()
	if _, err := os.Stat(s.Dir(name)); err != nil {
		s.CreateRepo(t, name)
	}
	gitDir := filepath.Join(t.TempDir(), "import.git")
	git(t, "", "init", "--quiet", "--bare", gitDir)
	g := func(args ...string) string {
		return git(t, "", append([]string{"--git-dir=" + gitDir, "--work-tree=" + src}, args...)...)
	}
	g("add", "-A", ".")
	g("commit", "--quiet", "-m", "import "+filepath.Base(src))
	g("push", "--quiet", s.Dir(name), "HEAD:refs/heads/"+branch)
	return strings.TrimSpace(g("rev-parse", "HEAD"))
}

// Fork creates repository to as a bare copy of repository from, every
// branch included, accepting pushes over HTTP, as GitHub makes a fork; it
// returns the fork's URL.
func (s *Server) Fork(t tb.TB, from, to string) string {
	t.Helper()
	dir := s.Dir(to)
	git(t, "", "clone", "--quiet", "--bare", s.Dir(from), dir)
	git(t, dir, "config", "http.receivepack", "true")
	return s.RepoURL(to)
}
