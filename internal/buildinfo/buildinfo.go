package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version and Revision are set with -ldflags "-X <this package>.Revision=<commit>
// -X <this package>.Version=<v>" when the build cannot read VCS information itself (a container build
// context without .git, or GOFLAGS=-buildvcs=false).
var (
	Version  string
	Revision string
)

// Stamp is what the binary knows about itself.
type Stamp struct {
	Module, Version, Revision, Time, GoVersion, Platform string
	Modified                                             bool
}

// Read reads the module version, VCS revision, time and dirty
// flag that the go command records (runtime/debug.ReadBuildInfo), with the
// -ldflags values above taking precedence when set.
func Read() Stamp {
	b := Stamp{Version: "(unknown)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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
	if Version != "" {
		b.Version = Version
	}
	if Revision != "" {
		b.Revision, b.Modified = strings.TrimSuffix(Revision, "-dirty"), strings.HasSuffix(Revision, "-dirty")
	}
	return b
}

// String is the text of `bot version` and `bot --version`.
func (b Stamp) String() string {
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
