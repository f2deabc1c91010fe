package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
)

// docsDir is the task pages the README links to.
const docsDir = "../../docs"

// readDocs returns every page under docs/ by its name.
func readDocs(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	pages := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		pages[filepath.Base(p)] = string(b)
	}
	return pages
}

// envNames lists the variables a config struct reads: each field's env tag
// under the prefixes of the structs it sits in (envPrefix).
func envNames(t reflect.Type, prefix string) []string {
	var names []string
	for f := range t.Fields() {
		if name, ok := f.Tag.Lookup("env"); ok {
			name, _, _ = strings.Cut(name, ",")
			names = append(names, prefix+name)
		} else if p, ok := f.Tag.Lookup("envPrefix"); ok && f.Type.Kind() == reflect.Struct {
			names = append(names, envNames(f.Type, prefix+p)...)
		}
	}
	return names
}

// Every variable the server or the local commands read is in the generated
// configuration reference (config's TestReference keeps it in step with the
// definitions; this checks the page the README links to is that one).
func TestDocsListEverySetting(t *testing.T) {
	t.Parallel()
	ref := readDocs(t)["configure-reference.md"]
	names := append(envNames(reflect.TypeFor[config.Server](), config.EnvPrefix),
		envNames(reflect.TypeFor[config.Local](), config.EnvPrefix)...)
	names = append(names, config.FileVar)
	require.Greater(t, len(names), 20)
	for _, name := range names {
		if !strings.Contains(ref, "`"+name+"`") {
			t.Errorf("docs/configure-reference.md does not document %s", name)
		}
	}
}

// Every flag of every subcommand appears on a docs/ page, so a newcomer can
// find what `--help` offers.
func TestDocsMentionEveryFlag(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, page := range readDocs(t) {
		all.WriteString(page)
	}
	docs := all.String()
	for _, cmd := range newRootCmd().Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !strings.Contains(docs, "--"+f.Name) {
				t.Errorf("no page under docs/ mentions `bot %s --%s`", cmd.Name(), f.Name)
			}
		})
	}
}

// The README fits on a screen or two and opens with the two commands a
// newcomer needs, in its first code block: the one that runs the bot's main
// job on embedded defaults (`bot try`) and the one that runs the tests;
// .ci/run runs that same test command.
func TestReadmeOpensWithTheTwoCommands(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	require.LessOrEqual(t, strings.Count(string(readme), "\n"), 150, "README.md stays under 150 lines: details go to docs/")
	_, rest, ok := strings.Cut(string(readme), "```sh\n")
	require.True(t, ok, "the README has a sh code block")
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	require.Less(t, strings.Index(string(readme), "```sh\n"), strings.Index(string(readme), "\n## "),
		"the commands come before the first section")
	var cmds []string
	for line := range strings.Lines(block) {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			cmds = append(cmds, cmd)
		}
	}
	require.Equal(t, []string{"go run ./cmd/bot try", "go test ./..."}, cmds)
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	require.Contains(t, strings.Split(string(ci), "\n"), cmds[1], ".ci/run runs the README's test command")
}

// mdLink is a Markdown link's target: ](target) or ](target#anchor).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README and the docs/ pages leads to a file that
// exists, and every #anchor to a heading of its page, so moving a section
// cannot leave a link dangling.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	files := map[string]string{"../../README.md": ""}
	for name := range readDocs(t) {
		files[filepath.Join(docsDir, name)] = ""
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		a := map[string]bool{}
		inFence := false
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
			}
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !inFence && strings.HasPrefix(line, "#") {
				a[slug(h)] = true
			}
		}
		anchors[path] = a
		return a
	}
	for path := range files {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), file)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links to %s, which does not exist", path, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s links to %s: no heading makes #%s", path, target, anchor)
			}
		}
	}
}

// slug is GitHub's anchor for a heading: lower case, letters, digits, spaces
// as hyphens, hyphens and underscores kept, everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
