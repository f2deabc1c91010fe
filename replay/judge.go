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
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
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
		} else if m := pytestVerbose.FindSubmatch(line); m != nil {
			set(string(m[1]), pytestStatus[string(m[2])])
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
}

// Judge decides whether every FAIL_TO_PASS and PASS_TO_PASS test passed.
// A test that never reported is "not run" (its package did not build, or
// the name is wrong); a skipped one did not pass.
func Judge(in *Instance, results map[string]string) Verdict {
	var v Verdict
	check := func(names []string) []string {
		var bad []string
		for _, n := range names {
			st := results[n]
			if st == "pass" {
				continue
			}
			if st == "" {
				st = "not run"
			}
			bad = append(bad, fmt.Sprintf("%s (%s)", n, st))
		}
		sort.Strings(bad)
		return bad
	}
	v.Failing, v.Broken = check(in.FailToPass), check(in.PassToPass)
	v.Resolved = len(v.Failing) == 0 && len(v.Broken) == 0
	return v
}

// Reason is the verdict in one line, naming at most three tests a list.
func (v Verdict) Reason() string {
	if v.Resolved {
		return "every FAIL_TO_PASS and PASS_TO_PASS test passed"
	}
	var parts []string
	if n := len(v.Failing); n > 0 {
		parts = append(parts, fmt.Sprintf("%d FAIL_TO_PASS not passing: %s", n, first(v.Failing, 3)))
	}
	if n := len(v.Broken); n > 0 {
		parts = append(parts, fmt.Sprintf("%d PASS_TO_PASS broken: %s", n, first(v.Broken, 3)))
	}
	return strings.Join(parts, "; ")
}

func first(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(", … (%d more)", len(s)-n)
}
