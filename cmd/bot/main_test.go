package main

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// testParallel is how many of this package's parallel tests run at once
// unless -parallel says otherwise.
const testParallel = 6

// TestMain raises the number of parallel tests run at once. These tests
// mostly wait on the processes they start (bot serve, git, the sandbox's
// commands): measured on the shared 2-core machine, 29 s of CPU in 55 s of
// wall time. go test's default, one test per core, leaves the cores idle
// while each test waits, and on a loaded machine the waits add up.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", strconv.Itoa(testParallel)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
