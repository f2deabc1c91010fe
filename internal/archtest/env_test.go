package archtest

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envReads are the functions that read the process environment.
var envReads = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "Environ"},
}

// envAllowed is where the non-test code may read the environment, and why:
// config/doc.go says nothing else reads it, cmd/bot/doc.go that the command
// line reads it only to hand it to config. A key is a package, or a file of
// one ("pkg/file.go"); the value lists the reads allowed there (nil: all).
var envAllowed = map[string][]string{
	// The settings, read once and validated.
	"config": nil,
	// A subprocess's environment: this process's, scrubbed of the bot's own.
	"internal/procenv/procenv.go": {"os.Environ"},
	// The command line hands the environment to config's parsers (and to
	// bot search's index folder, a local tool's cache, not a setting).
	"cmd/bot": {"os.Environ"},
	// The OpenTelemetry SDK reads its OTEL_* variables itself; otelexport
	// reads the two that say whether to export (its doc.go says so).
	"session/otelexport/exporter.go": {"os.Getenv"},
	// The egress bridge: this binary re-run inside the sandbox, its socket
	// named by a variable, the sandbox's environment handed to the command.
	"internal/sandbox/bridge.go": {"os.Getenv", "os.Environ"},
	// Test switches of test-only packages (never linked into the bot):
	// CI's "require" variables, llamatest's engine and templates, the
	// Gitea binary and its source (giteaserver) and the environment its
	// processes start from.
	"store/storetest/storetest.go":                {"os.Getenv"},
	"gitea/giteaserver/server.go":                 {"os.Getenv", "os.Environ"},
	"internal/sandbox/sandboxtest/sandboxtest.go": {"os.Getenv"},
	"llm/llamatest":                               {"os.Getenv"},
}

type goFiles struct {
	ImportPath string
	Dir        string
	GoFiles    []string
}

// TestEnvironmentReadOnlyInConfig: outside test files, the environment is
// read only where envAllowed says (config's contract: "Nothing else in
// issuesmith reads the environment", with the exceptions each package's
// doc states).
func TestEnvironmentReadOnlyInConfig(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	found := map[string]bool{} // allowed entries that matched a read
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goFiles
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(p.ImportPath, module)
		for _, f := range p.GoFiles {
			for _, read := range envReadsIn(t, filepath.Join(p.Dir, f)) {
				key, ok := allowedAt(pkg, f, read.name)
				if !ok {
					t.Errorf("%s/%s:%d reads the environment (%s); only config does (config/doc.go), "+
						"or a place internal/archtest's envAllowed names with its reason", pkg, f, read.line, read.name)
					continue
				}
				found[key] = true
			}
		}
	}
	for key := range envAllowed {
		if key != "config" && !found[key] {
			t.Errorf("envAllowed names %s, which reads no environment any more: drop it", key)
		}
	}
}

// allowedAt reports whether a read of name in file f of pkg is allowed,
// and by which envAllowed key.
func allowedAt(pkg, f, name string) (string, bool) {
	for _, key := range []string{pkg, pkg + "/" + f} {
		if reads, ok := envAllowed[key]; ok && (reads == nil || slices.Contains(reads, name)) {
			return key, true
		}
	}
	return "", false
}

type envRead struct {
	name string // "os.Getenv"
	line int
}

// envReadsIn lists the references to envReads' functions in a Go file,
// whatever name the file imports os or syscall under.
func envReadsIn(t *testing.T, path string) []envRead {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{} // the file's name for a package → its path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envReads[p]; !ok {
			continue
		}
		name := p
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
	}
	var reads []envRead
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := local[id.Name]; ok && slices.Contains(envReads[p], sel.Sel.Name) {
			reads = append(reads, envRead{name: p + "." + sel.Sel.Name, line: fset.Position(sel.Pos()).Line})
		}
		return true
	})
	return reads
}
