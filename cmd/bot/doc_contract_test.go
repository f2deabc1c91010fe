package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneFilePerSubcommand: doc.go's list of subcommands ("one file per
// subcommand (…)") and main.go's ("Subcommands, one file each: …") name
// exactly the commands the root command has, and each lives in its own
// file, <name>.go, with its constructor new<Name>Cmd.
func TestOneFilePerSubcommand(t *testing.T) {
	t.Parallel()
	var have []string
	for _, c := range newRootCmd().Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			have = append(have, c.Name())
		}
	}
	slices.Sort(have)
	require.NotEmpty(t, have)
	for file, re := range map[string]*regexp.Regexp{
		"doc.go":  regexp.MustCompile(`one file per\s+subcommand \(([^)]*)\)`),
		"main.go": regexp.MustCompile(`Subcommands, one file each: ([^.]*)\.`),
	} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", " ")), " ")
		m := re.FindStringSubmatch(text)
		require.NotNil(t, m, "%s no longer lists the subcommands", file)
		var listed []string
		for _, n := range strings.Split(m[1], ",") {
			listed = append(listed, strings.TrimSpace(n))
		}
		slices.Sort(listed)
		assert.Equal(t, have, listed, "%s's list of subcommands", file)
	}
	for _, name := range have {
		b, err := os.ReadFile(name + ".go")
		if !assert.NoError(t, err, "subcommand %s has no file of its own", name) {
			continue
		}
		ctor := "func new" + strings.ToUpper(name[:1]) + name[1:] + "Cmd("
		assert.Contains(t, string(b), ctor, "%s.go does not build the %s command", name, name)
	}
}
