package archtest

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/issuesmith/issuesmith/"

// rule is one import rule a package's doc.go states: says is its sentence
// (whitespace aside), the packages of ours it may import directly (only,
// when not nil) or must not import directly (never), and the import paths
// of any module it must not import directly (forbid: a path, or a prefix
// of its packages' paths, as "github.com/google/go-github" for every
// version).
type rule struct {
	pkg    string
	says   string
	only   []string
	never  []string
	forbid []string
}

var rules = []rule{
	{pkg: "llm", says: "It must never import other issuesmith packages (internal/clip and internal/redact, leaves, are the exceptions)",
		only: []string{"internal/clip", "internal/redact"}},
	{pkg: "lsp", says: "It imports no other issuesmith package but internal/procenv and internal/sandbox",
		only: []string{"internal/procenv", "internal/sandbox"}},
	{pkg: "coder/edit", says: "never imports another issuesmith package", only: []string{}},
	{pkg: "internal/sandbox", says: "It imports only internal/procenv of the project.", only: []string{"internal/procenv"}},
	{pkg: "internal/procenv", says: "It imports nothing of the project and never starts a process itself", only: []string{},
		forbid: []string{"os/exec"}},
	{pkg: "internal/redact", says: "it imports nothing of issuesmith", only: []string{}},
	{pkg: "internal/clip", says: "It is pure string handling: no I/O, and nothing of ours is imported", only: []string{},
		forbid: noIO},
	{pkg: "internal/fence", says: "It is pure string handling: no I/O, and nothing of ours is imported", only: []string{},
		forbid: noIO},
	{pkg: "internal/ghtext", says: "It is pure string work: no network, no GitHub client", only: []string{},
		forbid: append([]string{"github.com/google/go-github"}, noIO...)},
	{pkg: "internal/buildinfo", says: "It reads nothing else and changes nothing", only: []string{}, forbid: noIO},
	{pkg: "internal/sandbox/sandboxtest", says: "Of the project it imports only internal/sandbox",
		only: []string{"internal/sandbox"}},
	{pkg: "cievidence", says: "The package is pure string handling: no I/O, no network", forbid: noIO},
	{pkg: "work", says: "work is pure: no model calls, no repository, no GitHub client",
		never: []string{"repo", "ghapp"}, forbid: []string{"github.com/google/go-github", "github.com/go-git", "os", "os/exec", "net/http"}},
	{pkg: "store", says: "It must never call GitHub, git or a model",
		never: []string{"ghapp", "repo", "llm"}, forbid: []string{"github.com/google/go-github", "github.com/go-git", "os/exec"}},
	{pkg: "budget", says: "It must never call a model, GitHub or git",
		never: []string{"ghapp", "repo"}, forbid: []string{"github.com/google/go-github", "github.com/go-git", "os/exec"}},
	{pkg: "planner", says: "planner never touches the repository, never posts to GitHub",
		never: []string{"repo", "ghapp"}, forbid: []string{"github.com/google/go-github", "github.com/go-git", "os", "os/exec"}},
	{pkg: "preagent", says: "preagent never writes to the repository, never talks to GitHub",
		never: []string{"planner", "coder", "ghapp"}, forbid: []string{"github.com/google/go-github"}},
	{pkg: "summaries", says: "never talks to GitHub", never: []string{"ghapp"}, forbid: []string{"github.com/google/go-github"}},
	{pkg: "session", says: "It must never write to GitHub", never: []string{"ghapp"}, forbid: []string{"github.com/google/go-github"}},
	{pkg: "repo", says: "It knows nothing about GitHub's API, models or prompts",
		never: []string{"ghapp", "llm"}, forbid: []string{"github.com/google/go-github"}},
	{pkg: "webhook", says: "The package never runs agent work, never calls the model",
		never: []string{"ghapp", "llm", "agents", "preagent", "planner", "coder"}},
	{pkg: "ghapp", says: "ghapp never decides anything about an issue's journey (that is workflow/)",
		never: []string{"workflow", "webhook"}},
	{pkg: "config", says: "config never fetches anything from GitHub or the network",
		never: []string{"ghapp"}, forbid: []string{"github.com/google/go-github", "net/http"}},
	{pkg: "agents", says: "never answers HTTP", forbid: []string{"net/http"}},
	{pkg: "internal/archtest", says: "It imports nothing", only: []string{}},
	{pkg: "internal/spool", says: "It imports nothing of the project", only: []string{}},
	{pkg: "redeliver", says: "Of the project it imports ghapp (the attempt type) and webhook",
		only: []string{"ghapp", "webhook"}},
	// work/doc.go: "each imports work and none imports another agent".
	{pkg: "planner", never: []string{"preagent", "coder"}},
	{pkg: "coder", never: []string{"preagent", "planner"}},
	{pkg: "workflow", says: "The core — every file of this package — imports neither go-github, ghapp nor database/sql",
		never:  []string{"ghapp", "webhook", "agents", "preagent", "planner", "coder", "gitea", "workflow/ghport", "workflow/giteaport"},
		forbid: []string{"github.com/google/go-github", "database/sql"}},
	{pkg: "workflow/lifecycle", says: "It must never import anything of this module",
		only: []string{}},
	{pkg: "workflow/ghport", says: "Of the project it imports only workflow, ghapp and internal/ghtext",
		only: []string{"workflow", "ghapp", "internal/ghtext"}},
	{pkg: "workflow/giteaport", says: "imports no go-github, ghapp client or store",
		only: []string{"workflow", "gitea", "ghapp", "internal/ghtext"}, forbid: []string{"github.com/google/go-github"}},
	{pkg: "giteapoll", says: "It calls Gitea only through gitea.Client", only: []string{"gitea", "webhook", "workflow"}},
	{pkg: "gitea", says: "gitea never imports the workflow or go-github", never: []string{"workflow", "repo", "store"}, forbid: []string{"github.com/google/go-github"}},
}

// noIO are the standard packages through which a package does I/O.
var noIO = []string{"os", "os/exec", "io/fs", "net", "net/http", "syscall"}

// fakes are the test doubles whose doc.go says the bot's real paths must
// never import them: outside tests only `bot try` (trydemo, and cmd/bot,
// which links it for that command) may depend on them.
var fakes = map[string]string{
	"ghapp/ghtest":    "The bot's real paths must never import it.",
	"repo/gittest":    "bot's real paths must never import it.",
	"llm/llmtest":     "must never import it.",
	"store/storetest": "never be imported by",
	"gitea/giteatest": "must never import it",

	"internal/sandbox/sandboxtest": "the bot's real paths must never import it.",
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// golist lists the packages matching patterns as the go command sees them
// (no test files).
func golist(t *testing.T, root string, patterns ...string) map[string]listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, patterns...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]listed{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// ours lists the project packages among imports, module-relative.
func ours(imports []string) []string {
	var out []string
	for _, i := range imports {
		if rel, ok := strings.CutPrefix(i, module); ok {
			out = append(out, rel)
		}
	}
	return out
}

// contract is pkg's doc.go with runs of white space and comment markers
// folded, so a sentence matches however it is wrapped.
func contract(t *testing.T, root, pkg string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, pkg, "doc.go"))
	if err != nil {
		t.Fatalf("%s has no doc.go: %v", pkg, err)
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", " ")), " ")
}

func TestDocContractsImportRules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := golist(t, root, "./...")
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			p, ok := pkgs[r.pkg]
			if !ok {
				t.Fatalf("no package %s", r.pkg)
			}
			if r.says != "" && !strings.Contains(contract(t, root, r.pkg), r.says) {
				t.Errorf("%s/doc.go no longer says %q: update the contract and this rule together", r.pkg, r.says)
			}
			for _, imp := range ours(p.Imports) {
				if r.only != nil && !slices.Contains(r.only, imp) {
					t.Errorf("%s imports %s; its doc.go allows only %v", r.pkg, imp, r.only)
				}
				if slices.Contains(r.never, imp) {
					t.Errorf("%s imports %s, which its contract forbids", r.pkg, imp)
				}
			}
			for _, imp := range p.Imports {
				for _, f := range r.forbid {
					if imp == f || strings.HasPrefix(imp, f+"/") {
						t.Errorf("%s imports %s, which its contract forbids", r.pkg, imp)
					}
				}
			}
		})
	}
	if !strings.Contains(contract(t, root, "work"), "each imports work and none imports another agent") {
		t.Error("work/doc.go no longer states the agents' rule")
	}
	for fake, says := range fakes {
		if !strings.Contains(contract(t, root, fake), says) {
			t.Errorf("%s/doc.go no longer says %q", fake, says)
		}
		if _, ok := pkgs[fake]; !ok {
			t.Errorf("no package %s", fake)
		}
		for name, p := range pkgs {
			if name == "trydemo" || name == "cmd/bot" || slices.Contains(slices.Collect(maps.Keys(fakes)), name) {
				continue
			}
			if slices.Contains(p.Deps, module+fake) {
				t.Errorf("%s depends on the test fake %s; only bot try (trydemo) may", name, fake)
			}
		}
	}
}
