package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
)

// envNames lists the variables a config struct reads: each field's env tag
// under the prefixes of the structs it sits in (envPrefix).
func envNames(t reflect.Type, prefix string) []string {
	var names []string
	for f := range t.Fields() {
		if name, ok := f.Tag.Lookup("env"); ok {
			names = append(names, prefix+name)
		} else if p, ok := f.Tag.Lookup("envPrefix"); ok && f.Type.Kind() == reflect.Struct {
			names = append(names, envNames(f.Type, prefix+p)...)
		}
	}
	return names
}

// Every variable the server or the local commands read is in the README's
// Configure table (in full, or as `..._SUFFIX` beside its model sibling),
// so a new setting cannot ship undocumented.
func TestReadmeListsEverySetting(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	doc := string(readme)
	names := append(envNames(reflect.TypeFor[config.Server](), config.EnvPrefix),
		envNames(reflect.TypeFor[config.Local](), config.EnvPrefix)...)
	names = append(names, config.EnvPrefix+"CONFIG_FILE")
	require.Greater(t, len(names), 20)
	for _, name := range names {
		short := "`..._" + strings.TrimPrefix(name, config.EnvPrefix+"MODEL_") + "`"
		if !strings.Contains(doc, "`"+name+"`") && !strings.Contains(doc, short) {
			t.Errorf("README.md does not document %s", name)
		}
	}
}

// Every flag of every subcommand appears in the README, so a newcomer can
// find what `--help` offers.
func TestReadmeMentionsEveryFlag(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	for _, cmd := range newRootCmd().Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !strings.Contains(string(readme), "--"+f.Name) {
				t.Errorf("README.md does not mention `bot %s --%s`", cmd.Name(), f.Name)
			}
		})
	}
}

// The README opens with the two commands a newcomer needs, in its first
// code block: the one that runs the bot's main job (the App) and the one
// that runs the tests; .ci/run runs that same test command.
func TestReadmeOpensWithTheTwoCommands(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
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
	require.Equal(t, []string{"go run ./cmd/bot serve", "go test ./..."}, cmds)
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	require.Contains(t, strings.Split(string(ci), "\n"), cmds[1], ".ci/run runs the README's test command")
}
