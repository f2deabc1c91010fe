package main

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionPrintsBuildStamp(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs(args)
		require.NoError(t, root.Execute())
		require.Contains(t, out.String(), "bot ")
		require.Contains(t, out.String(), "github.com/issuesmith/issuesmith")
		require.Contains(t, out.String(), "go: "+runtime.Version())
		require.Contains(t, out.String(), "revision: ")
	}
}

// A revision given through -ldflags (a container build without .git) wins,
// and its -dirty suffix becomes the modified note.
func TestVersionFromLdflags(t *testing.T) {
	defer func(v, r string) { buildVersion, buildRevision = v, r }(buildVersion, buildRevision)
	buildVersion, buildRevision = "v1.2.3", "0123456789abcdef-dirty"
	s := readBuildStamp().String()
	require.Contains(t, s, "bot v1.2.3 (github.com/issuesmith/issuesmith)")
	require.Contains(t, s, "revision: 0123456789abcdef (modified")
}
