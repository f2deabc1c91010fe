package coder

import (
	"context"
	"sort"
	"strings"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// The default checks of a Python change, run on the changed .py files of
// any repository (no configuration, no test command guessed): they read
// the files and run none of the repository's code. python3 -I keeps the
// worktree off sys.path (a file named py_compile.py or pyflakes/ in the
// repository cannot stand in for the checker) and ignores PYTHON*.
const (
	// pyCompileScript compiles each file in memory (py_compile would
	// write __pycache__ into the worktree) and prints every syntax error
	// as path:line:col.
	pyCompileScript = `import sys, warnings
warnings.simplefilter("ignore")
bad = 0
for f in sys.argv[1:]:
    try:
        with open(f, "rb") as fh:
            src = fh.read()
        compile(src, f, "exec", dont_inherit=True)
    except SyntaxError as e:
        bad += 1
        print("%s:%s:%s: %s: %s" % (f, e.lineno or 1, e.offset or 0, type(e).__name__, e.msg))
        if e.text:
            print("    " + e.text.rstrip())
    except (ValueError, UnicodeDecodeError) as e:
        bad += 1
        print("%s:1:0: %s: %s" % (f, type(e).__name__, e))
sys.exit(1 if bad else 0)
`
	// pyflakesScript reports what pyflakes finds that is an error rather
	// than style: names used but never defined or imported, a local read
	// before it is set, an __all__ naming nothing; unused imports and
	// variables are not the change's failure.
	pyflakesScript = `import sys
try:
    from pyflakes import api, messages
except ImportError:
    print("` + pyflakesMissing + `")
    sys.exit(3)
names = ("UndefinedName", "UndefinedExport", "UndefinedLocal", "DuplicateArgument",
         "ReturnOutsideFunction", "YieldOutsideFunction", "ContinueOutsideLoop", "BreakOutsideLoop")
keep = tuple(getattr(messages, n) for n in names if hasattr(messages, n))
class Report:
    n = 0
    def unexpectedError(self, filename, msg):
        Report.n += 1
        print("%s: %s" % (filename, msg))
    def syntaxError(self, filename, msg, lineno, offset, text):
        Report.n += 1
        print("%s:%s:%s: %s" % (filename, lineno, offset or 0, msg))
    def flake(self, m):
        if isinstance(m, keep):
            Report.n += 1
            print(m)
for f in sys.argv[1:]:
    api.checkPath(f, Report())
sys.exit(1 if Report.n else 0)
`
	pyflakesMissing = "not run: pyflakes is not installed on the bot's host (Debian: apt-get install python3-pyflakes); " +
		"only the byte-compile check ran"
	noPython = "not run: no python3 in the sandbox (Debian: apt-get install python3 on the bot's host)"
)

// Names of the Python checks.
const (
	CheckPyCompile = "python compile"
	CheckPyflakes  = "pyflakes"
)

// pyFiles are the changed .py files that still exist, sorted.
func pyFiles(t *tree, changed []string) []string {
	var out []string
	for _, p := range changed {
		if !strings.HasSuffix(p, ".py") {
			continue
		}
		if _, ok, _ := t.read(p); ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// pythonChecks byte-compiles files and, when that passes and pyflakes is
// importable, checks them with pyflakes. Only in the sandbox (env: PATH
// with the setup's virtual environment first, when it made one): without
// bubblewrap they are not run on the host, and a note says so (as without
// pyflakes or python3: a Note, not a failed validation).
func (r runner) pythonChecks(ctx context.Context, files, env []string) []CheckResult {
	if len(files) == 0 {
		return nil
	}
	list := strings.Join(files, " ")
	if err := sandbox.Check(); err != nil {
		return []CheckResult{{Name: CheckPyCompile, Command: "python3 -I compile " + list, Refused: true, Note: true,
			Output: "not run: Python checks run only in a bubblewrap sandbox: " + err.Error()}}
	}
	compile := r.pyRun(ctx, CheckPyCompile, pyCompileScript, files, env)
	compile.Command = "python3 -I compile " + list
	if !compile.OK {
		return []CheckResult{compile}
	}
	flakes := r.pyRun(ctx, CheckPyflakes, pyflakesScript, files, env)
	flakes.Command = "pyflakes " + list
	if !flakes.OK && strings.HasPrefix(flakes.Output, "not run: pyflakes") {
		flakes.Refused, flakes.Note, flakes.Output = true, true, pyflakesMissing
	}
	return []CheckResult{compile, flakes}
}

// pyRun runs a check script over files with python3 -I in the sandbox.
func (r runner) pyRun(ctx context.Context, name, script string, files, env []string) CheckResult {
	argv := append([]string{"python3", "-I", "-c", script}, files...)
	res := r.run(ctx, name, argv, env, true)
	if !res.OK && strings.Contains(res.Output, "execvp python3") {
		res.Refused, res.Note, res.Output = true, true, noPython
	}
	return res
}
