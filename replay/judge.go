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

// ParseResults reads test results by name from `go test -json` events
// (lines that are not JSON events are read as `-v` output). A name that
// ran in several packages fails if it failed in any; pass beats skip.
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
		}
	}
	return res
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
