package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The goodbye module's solve runs share one sandbox build cache
// (solveCacheKey), filled by whichever runs first.
var goodbyeCache struct {
	sync.Mutex
	warm bool
}

func init() { solveCacheKey = "test:cmd/bot's goodbye module" }

// goodbyeTree writes a small Go module: a greet package and a main using it.
func goodbyeTree(t *testing.T) string {
	t.Helper()
	return writeTree(t, map[string]string{
		"go.mod":                 "module example.com/greet\n\ngo 1.22\n",
		"greet/greet.go":         "// Package greet greets.\npackage greet\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n",
		"main.go":                "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/greet/greet\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(os.Args[1]))\n}\n",
		".github/issuesmith.yml": "version: 1\nobserver: false\nroles:\n  explorer:\n    max_steps: 6\n",
	})
}

const goodbyeDiff = `--- a/greet/greet.go
+++ b/greet/greet.go
@@ -5,3 +5,8 @@
 func Hello(name string) string {
 	return "Hello, " + name
 }
+
+// Goodbye says goodbye to name.
+func Goodbye(name string) string {
+	return "Goodbye, " + name
+}
--- a/main.go
+++ b/main.go
@@ -9,4 +9,5 @@
 
 func main() {
 	fmt.Println(greet.Hello(os.Args[1]))
+	fmt.Println(greet.Goodbye(os.Args[1]))
 }
`

func runGoodbye(t *testing.T, dir string, args ...string) (string, string, *llmtest.Server) {
	t.Helper()
	goodbyeCache.Lock()
	if goodbyeCache.warm {
		goodbyeCache.Unlock()
	} else { // the first run fills the shared build cache alone; the rest find it warm
		defer func() {
			goodbyeCache.warm = true
			goodbyeCache.Unlock()
		}()
	}
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/solve_code.yaml"))
	cmd := newSolveCmdWith(func() []string {
		return []string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=scripted", "ISSUESMITH_MODEL_MAX_RETRIES=0"}
	})
	out, errOut, err := execCmd(t, cmd, "# Add a goodbye\n\nThe CLI should say goodbye after the greeting.\n",
		append([]string{"--repo", dir, "--issue", "-"}, args...)...)
	if err != nil {
		t.Fatalf("solve: %v\nstderr:\n%s", err, errOut)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted exchanges left\nstderr:\n%s", n, errOut)
	}
	return out, errOut, srv
}

// TestSolveCodesThePlan runs explore → plan → code on a real checkout with
// the scripted model and checks the working tree ends with the expected diff.
func TestSolveCodesThePlan(t *testing.T) {
	t.Parallel()
	dir := goodbyeTree(t)
	out, progress, _ := runGoodbye(t, dir)
	if !strings.Contains(out, "```diff\n"+goodbyeDiff+"```\n") {
		t.Errorf("stdout lacks the diff:\n%s", out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "\tfmt.Println(greet.Goodbye(os.Args[1]))\n") {
		t.Errorf("main.go not changed in the working tree:\n%s", got)
	}
	for _, want := range []string{"solve: coding", "main.go                  done     attempts=2",
		"greet/greet.go           done     attempts=1", "retries: 1;", "2 files changed, 6 insertions(+), 0 deletions(-)"} {
		if !strings.Contains(progress, want) {
			t.Errorf("stderr lacks %q:\n%s", want, progress)
		}
	}
	t.Logf("stderr:\n%s", progress)
}

func TestSolveCodeJSON(t *testing.T) {
	t.Parallel()
	out, _, _ := runGoodbye(t, goodbyeTree(t), "--json")
	var rec struct {
		Code  *coder.Result
		Usage []struct{ Calls int }
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if rec.Code == nil || rec.Code.Changes.Diff != goodbyeDiff || !rec.Code.OK() {
		t.Fatalf("code record = %+v", rec.Code)
	}
	if last := rec.Usage[len(rec.Usage)-1]; last.Calls != 6 {
		t.Errorf("calls = %d, want 6", last.Calls)
	}
}

// gitInit makes dir a git checkout on main with one commit.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "--quiet", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "base"}} {
		gitOut(t, dir, args...)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// In a git checkout solve writes on a new branch named after the issue,
// left uncommitted for review, and main keeps its commit; a taken name gets
// a suffix; --branch names it; --no-branch writes on the current branch.
func TestSolveWritesOnANewBranch(t *testing.T) {
	t.Parallel()
	dir := goodbyeTree(t)
	gitInit(t, dir)
	base := gitOut(t, dir, "rev-parse", "main")
	gitOut(t, dir, "branch", "issuesmith/add-a-goodbye") // taken: the run must not touch it
	_, progress, _ := runGoodbye(t, dir)
	if got := gitOut(t, dir, "branch", "--show-current"); got != "issuesmith/add-a-goodbye-2" {
		t.Fatalf("current branch %q\n%s", got, progress)
	}
	if !strings.Contains(progress, "solve: writing on the new branch issuesmith/add-a-goodbye-2 (uncommitted") {
		t.Errorf("stderr does not say where the change is:\n%s", progress)
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != base || gitOut(t, dir, "rev-parse", "main") != base ||
		gitOut(t, dir, "rev-parse", "issuesmith/add-a-goodbye") != base {
		t.Error("a commit was made: the change must be left uncommitted")
	}
	if diff := gitOut(t, dir, "diff", "--stat"); !strings.Contains(diff, "main.go") {
		t.Errorf("the change is not in the working tree: %q", diff)
	}

	named := goodbyeTree(t)
	gitInit(t, named)
	runGoodbye(t, named, "--branch", "feature/bye")
	if got := gitOut(t, named, "branch", "--show-current"); got != "feature/bye" {
		t.Errorf("--branch: on %q", got)
	}
	inPlace := goodbyeTree(t)
	gitInit(t, inPlace)
	runGoodbye(t, inPlace, "--no-branch")
	if got := gitOut(t, inPlace, "branch", "--show-current"); got != "main" {
		t.Errorf("--no-branch: on %q", got)
	}
}
