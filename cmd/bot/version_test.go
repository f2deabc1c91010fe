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
