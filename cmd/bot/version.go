package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set with -ldflags "-X main.buildRevision=<commit> -X main.buildVersion=<v>"
// when the build cannot read VCS information itself (a container build
// context without .git, or GOFLAGS=-buildvcs=false).
var (
	buildVersion  string
	buildRevision string
)

// buildStamp is what the binary knows about itself.
type buildStamp struct {
	Module, Version, Revision, Time, GoVersion, Platform string
	Modified                                             bool
}

// readBuildStamp reads the module version, VCS revision, time and dirty
// flag that the go command records (runtime/debug.ReadBuildInfo), with the
// -ldflags values above taking precedence when set.
func readBuildStamp() buildStamp {
	b := buildStamp{Version: "(unknown)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Module, b.Version, b.GoVersion = bi.Main.Path, bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if buildVersion != "" {
		b.Version = buildVersion
	}
	if buildRevision != "" {
		b.Revision, b.Modified = strings.TrimSuffix(buildRevision, "-dirty"), strings.HasSuffix(buildRevision, "-dirty")
	}
	return b
}

// String is the text of `bot version` and `bot --version`.
func (b buildStamp) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "bot %s", b.Version)
	if b.Module != "" {
		fmt.Fprintf(&s, " (%s)", b.Module)
	}
	s.WriteString("\n")
	switch {
	case b.Revision == "":
		s.WriteString("revision: unknown (built without VCS information: -buildvcs=false or no .git)\n")
	default:
		fmt.Fprintf(&s, "revision: %s", b.Revision)
		if b.Modified {
			s.WriteString(" (modified: built from a tree with uncommitted changes)")
		}
		if b.Time != "" {
			fmt.Fprintf(&s, ", committed %s", b.Time)
		}
		s.WriteString("\n")
	}
	fmt.Fprintf(&s, "go: %s %s\n", b.GoVersion, b.Platform)
	return s.String()
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go version this binary was built from",
		Long: "Print what the binary knows about its build: the module version (a tag for go install …@vX, " +
			"a pseudo-version or (devel) for a checkout), the VCS revision with a note when the tree had " +
			"uncommitted changes, and the Go version. Same as bot --version.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), readBuildStamp())
			return err
		},
	}
}
