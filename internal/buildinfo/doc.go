// Package buildinfo says what a binary was built from: module version, VCS
// revision and dirty flag, commit time, Go version and platform, read from
// the build information the go command records, or from -ldflags -X values
// for builds that cannot record it (a container build without .git). It
// reads nothing else and changes nothing.
package buildinfo
