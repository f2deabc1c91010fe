package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// testEvent is the part of a `go test -json` (test2json) event judging needs.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// vLine matches a `go test -v` result line ("--- PASS: TestX/sub (0.00s)").
var vLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// pytestSummary matches a line of pytest's short test summary (`-rA`:
// "PASSED tests/test_x.py::test_y", "FAILED … - reason") and pytestVerbose
// a `-v` line ("tests/test_x.py::test_y PASSED [ 50%]"); the name is the
// node id. As SWE-bench's harness reads them, XFAIL counts as a pass and
// XPASS does not.
var (
	pytestSummary = regexp.MustCompile(`^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+::.+)$`)
	pytestVerbose = regexp.MustCompile(`^(\S+::.+?) (PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)(\s|$)`)
	// pytestSkipLine is -rA's line for skips, by where the skip was
	// decided, not by test: "SKIPPED [3] tests/t.py:12: needs PyQt 6.7".
	pytestSkipLine = regexp.MustCompile(`^SKIPPED \[\d+\] ([^:\s]+):\d+: (.+)$`)
	// pytestSkipWhy is the reason -v prints after SKIPPED: "(needs PyQt 6.7)".
	pytestSkipWhy = regexp.MustCompile(`^\s*\((.*?)\)\s*(\[\s*\d+%\])?\s*$`)
	pytestStatus  = map[string]string{"PASSED": "pass", "XFAIL": "pass", "FAILED": "fail", "ERROR": "fail",
		"XPASS": "fail", "SKIPPED": "skip"}
)

// ParseResults reads test results by name from `go test -json` events
// (lines that are not JSON events are read as `-v` output) and from
// pytest's `-rA` summary or `-v` lines. A name that ran in several packages
// fails if it failed in any; pass beats skip.
func ParseResults(out []byte) map[string]string {
	res := map[string]string{}
	set := func(name, st string) {
		switch prev := res[name]; {
		case prev == "fail":
		case st == "fail", prev == "":
			res[name] = st
		case st == "pass":
			res[name] = st
		case strings.HasPrefix(st, "skip: ") && prev == "skip":
			res[name] = st // the -v line's reason beats the summary's bare skip
		}
	}
	skipWhy := map[string]map[string]bool{} // file → the reasons -rA gave for skips in it
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if m := pytestSkipLine.FindSubmatch(line); m != nil {
			file := string(m[1])
			if skipWhy[file] == nil {
				skipWhy[file] = map[string]bool{}
			}
			skipWhy[file][string(m[2])] = true
			continue
		}
		var ev testEvent
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &ev) == nil && ev.Action != "" {
			switch ev.Action {
			case "pass", "fail", "skip":
				if ev.Test != "" {
					set(ev.Test, ev.Action)
				}
			}
			continue
		}
		if m := vLine.FindSubmatch(line); m != nil {
			set(string(m[2]), strings.ToLower(string(m[1])))
		} else if m := pytestSummary.FindSubmatch(line); m != nil {
			set(pytestNodeID(string(m[2])), pytestStatus[string(m[1])])
		} else if m := pytestVerbose.FindSubmatchIndex(line); m != nil {
			name, st := string(line[m[2]:m[3]]), pytestStatus[string(line[m[4]:m[5]])]
			if w := pytestSkipWhy.FindSubmatch(line[m[5]:]); st == "skip" && w != nil && len(w[1]) > 0 {
				st = "skip: " + string(w[1]) // why, so a missing dependency is told from a failure
			}
			set(name, st)
		}
	}
	// A skip -v gave no reason for takes the one reason -rA gave for skips
	// in its file (none when the file's skips had several).
	for name, st := range res {
		file, _, _ := strings.Cut(name, "::")
		if st == "skip" && len(skipWhy[file]) == 1 {
			for why := range skipWhy[file] {
				res[name] = "skip: " + why
			}
		}
	}
	return res
}

// pytestNodeID is the node id at the start of rest, the part of a summary
// line after its status: up to the first space, unless that cuts a
// parametrised id whose brackets hold spaces; then up to the first "]"
// that ends the line or comes before " - reason".
func pytestNodeID(rest string) string {
	id, _, _ := strings.Cut(rest, " ")
	if !strings.Contains(id, "[") || strings.HasSuffix(id, "]") {
		return id
	}
	for k := len(id); k < len(rest); k++ {
		if rest[k] == ']' && (k+1 == len(rest) || strings.HasPrefix(rest[k+1:], " - ")) {
			return rest[:k+1]
		}
	}
	return rest
}

// Verdict is the judgement of one test run against an instance's lists.
type Verdict struct {
	Resolved bool
	// Failing are FAIL_TO_PASS tests that did not pass; Broken are
	// PASS_TO_PASS tests that did not pass (each "name (status)").
	Failing, Broken []string
	// Skipped are the listed tests the run skipped (pytest's reason with
	// each: "needs PyQt 6.7"): the environment could not run them, which
	// says nothing of the change. A skipped FAIL_TO_PASS test still leaves
	// the instance unresolved, and it is named here, not under Failing.
	Skipped []string
}

// Judge decides whether every FAIL_TO_PASS and PASS_TO_PASS test passed.
// A test that never reported is "not run" (its package did not build, or
// the name is wrong); a skipped one is listed under Skipped. A name is
// found as written, else in the shapes public sets write pytest's node ids
// in (names): a parametrised id cut at the first space inside its
// brackets, "//" collapsed to "/".
func Judge(in *Instance, results map[string]string) Verdict {
	var v Verdict
	idx := indexNames(results)
	skippedF2P := false
	check := func(names []string, f2p bool) []string {
		var bad []string
		for _, n := range names {
			st := idx.status(n)
			switch {
			case st == "pass":
				continue
			case st == "skip" || strings.HasPrefix(st, "skip: "):
				why := strings.TrimPrefix(strings.TrimPrefix(st, "skip"), ": ")
				if why == "" {
					why = "no reason given"
				}
				v.Skipped = append(v.Skipped, fmt.Sprintf("%s (skipped: %s)", n, why))
				skippedF2P = skippedF2P || f2p
				continue
			case st == "":
				st = "not run"
			}
			bad = append(bad, fmt.Sprintf("%s (%s)", n, st))
		}
		sort.Strings(bad)
		return bad
	}
	v.Failing, v.Broken = check(in.FailToPass, true), check(in.PassToPass, false)
	sort.Strings(v.Skipped)
	v.Resolved = len(v.Failing) == 0 && len(v.Broken) == 0 && !skippedF2P
	return v
}

// Reason is the verdict in one line, naming at most three tests a list.
func (v Verdict) Reason() string {
	if v.Resolved && len(v.Skipped) == 0 {
		return "every FAIL_TO_PASS and PASS_TO_PASS test passed"
	}
	if v.Resolved {
		return fmt.Sprintf("every FAIL_TO_PASS test passed and no PASS_TO_PASS test broke; %d skipped by the environment: %s",
			len(v.Skipped), first(v.Skipped, 3))
	}
	var parts []string
	if n := len(v.Failing); n > 0 {
		parts = append(parts, fmt.Sprintf("%d FAIL_TO_PASS not passing: %s", n, first(v.Failing, 3)))
	}
	if n := len(v.Broken); n > 0 {
		parts = append(parts, fmt.Sprintf("%d PASS_TO_PASS broken: %s", n, first(v.Broken, 3)))
	}
	if n := len(v.Skipped); n > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped by the environment, not failed: %s", n, first(v.Skipped, 3)))
	}
	return strings.Join(parts, "; ")
}

func first(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(", … (%d more)", len(s)-n)
}
