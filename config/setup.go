package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Setup is what a repository's checks need before they run (the peers'
// "setup steps"): system packages the bot's host must have, and commands
// run once per worktree in the sandbox before the first checks.
type Setup struct {
	// Packages are the Debian packages the checks need (python3-pytest,
	// python3-pyqt5, ...). The bot checks that its host has them
	// (dpkg-query) and never installs anything; a missing one is named,
	// with the apt-get line that installs it, and the setup commands and
	// checks are not run.
	Packages []string `yaml:"packages"`
	// Commands run with sh -c in the worktree, in the sandbox with the
	// checks' egress, once before the first checks (only when the checks
	// themselves may run: run_commands). When the egress allows a Python
	// package index, they run in a virtual environment kept with this
	// repository's caches (the host's Debian packages visible in it) and
	// the checks run with it too; without one, a pip install is reported as
	// needing egress instead of being run.
	Commands []string `yaml:"commands"`
	// IndexURL is the Python package index pip uses in the virtual
	// environment ("": PyPI, which needs pypi.org and files.pythonhosted.org
	// in egress.hosts); its host must be in egress.hosts too.
	IndexURL string `yaml:"index_url"`
}

// Limits of a setup section: commands are a few lines, not scripts.
const (
	MaxSetupPackages = 200
	MaxSetupCommands = 20
	maxCommandBytes  = 4096
)

// debianName is Debian policy's package name (5.6.1): lower-case letters,
// digits, '+', '-' and '.', at least two characters, starting with a letter
// or digit. It also keeps a name from reading as a dpkg-query option.
var debianName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// ValidPackageName reports whether name is a Debian package name.
func ValidPackageName(name string) bool { return len(name) <= 128 && debianName.MatchString(name) }

// checkSetup validates the setup section; errors name the key and its line.
func checkSetup(root *yaml.Node, s Setup) error {
	at := func(key string, i int, msg string) error {
		line := 0
		if n := nestedKeyNode(root, "setup", key); n != nil {
			line = n.Line
			if v := setupValue(root, key); v != nil && v.Kind == yaml.SequenceNode && i >= 0 && i < len(v.Content) {
				line = v.Content[i].Line
			}
		} else if n := keyNode(root, "setup"); n != nil {
			line = n.Line
		}
		return &RepoError{Key: "setup." + key, Line: line, Msg: msg}
	}
	if len(s.Packages) > MaxSetupPackages {
		return at("packages", -1, fmt.Sprintf("at most %d packages, got %d", MaxSetupPackages, len(s.Packages)))
	}
	for i, p := range s.Packages {
		if !ValidPackageName(p) {
			return at("packages", i, fmt.Sprintf("entry %d (%q) is not a Debian package name (lower-case letters, digits, '+', '-' and '.', starting with a letter or digit)", i, p))
		}
	}
	if len(s.Commands) > MaxSetupCommands {
		return at("commands", -1, fmt.Sprintf("at most %d commands, got %d", MaxSetupCommands, len(s.Commands)))
	}
	for i, c := range s.Commands {
		switch {
		case strings.TrimSpace(c) == "":
			return at("commands", i, fmt.Sprintf("entry %d is empty", i))
		case strings.ContainsRune(c, 0):
			return at("commands", i, fmt.Sprintf("entry %d holds a NUL byte", i))
		case len(c) > maxCommandBytes:
			return at("commands", i, fmt.Sprintf("entry %d is longer than %d bytes: put a script in the repository and run it", i, maxCommandBytes))
		}
	}
	if s.IndexURL != "" {
		if msg := checkIndexURL(s.IndexURL); msg != "" {
			return at("index_url", -1, msg)
		}
	}
	return nil
}

// checkIndexURL says what is wrong with a package index URL, or "".
func checkIndexURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q is not an http(s) URL like https://pypi.example.com/simple", s)
	case u.User != nil:
		return "must not hold a user or password (the file is public; the index must be reachable without them)"
	case strings.ContainsAny(s, " \t\r\n'\"\\`$"):
		return fmt.Sprintf("%q holds a space, quote, backslash, backquote or $", s)
	}
	return ""
}

// setupValue is the value node of setup.<key>, or nil.
func setupValue(root *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "setup" || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		m := root.Content[i+1]
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == key {
				return m.Content[j+1]
			}
		}
	}
	return nil
}
