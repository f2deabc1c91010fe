package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Instance is one SWE-bench-style task: a repository at a base commit, the
// issue, the tests that judge a fix, and either the gold and test patches
// or the fix commit they are cut from (split by GoldFiles / TestFiles).
type Instance struct {
	ID               string    `json:"instance_id"`
	Repo             string    `json:"repo"`
	BaseCommit       string    `json:"base_commit"`
	ProblemStatement string    `json:"problem_statement"`
	FailToPass       testNames `json:"FAIL_TO_PASS"`
	PassToPass       testNames `json:"PASS_TO_PASS"`
	TestCmd          string    `json:"test_cmd"`
	Patch            string    `json:"patch"`
	TestPatch        string    `json:"test_patch"`
	FixCommit        string    `json:"fix_commit"`
	GoldFiles        []string  `json:"gold_files"`
	TestFiles        []string  `json:"test_files"`
	// Setup is an optional shell command run in the clone before the
	// tests (outside the sandbox's network ban), e.g. "go mod download".
	Setup string `json:"setup,omitempty"`
}

// testNames reads SWE-bench's FAIL_TO_PASS / PASS_TO_PASS, which are a JSON
// list in some files and a JSON-encoded string holding that list in others.
type testNames []string

func (t *testNames) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*t = list
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a list of test names: %w", err)
	}
	if strings.TrimSpace(s) == "" {
		*t = nil
		return nil
	}
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return fmt.Errorf("want a list of test names: %w", err)
	}
	*t = list
	return nil
}

// DefaultTestCmd is the test command of an instance that names none.
const DefaultTestCmd = "go test -run '^({tests})$' ./..."

func (in *Instance) validate() error {
	var miss []string
	for _, f := range []struct{ name, v string }{{"instance_id", in.ID}, {"repo", in.Repo}, {"base_commit", in.BaseCommit}} {
		if strings.TrimSpace(f.v) == "" {
			miss = append(miss, f.name)
		}
	}
	if len(miss) > 0 {
		return fmt.Errorf("missing %s", strings.Join(miss, ", "))
	}
	if in.Patch == "" && in.FixCommit == "" {
		return errors.New("needs patch (with test_patch) or fix_commit")
	}
	if len(in.FailToPass) == 0 {
		return errors.New("FAIL_TO_PASS is empty: nothing would judge a fix")
	}
	if in.TestCmd == "" {
		in.TestCmd = DefaultTestCmd
	}
	return nil
}

// LineError is an instance line that could not be read; the rest of the
// file is still used.
type LineError struct {
	Line int
	ID   string // the instance_id when it could be read
	Err  error
}

func (e *LineError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("instances line %d (%s): %v", e.Line, e.ID, e.Err)
	}
	return fmt.Sprintf("instances line %d: %v", e.Line, e.Err)
}

// ReadInstances reads JSON lines; a broken line is a LineError and the
// others are kept. Blank lines are skipped; a repeated instance_id is an
// error on its second line.
func ReadInstances(r io.Reader) ([]Instance, []*LineError, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Instance
	var bad []*LineError
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var in Instance
		err := json.Unmarshal(line, &in)
		if err == nil {
			err = in.validate()
		}
		if err == nil && seen[in.ID] {
			err = errors.New("instance_id repeated")
		}
		if err != nil {
			bad = append(bad, &LineError{Line: n, ID: in.ID, Err: err})
			continue
		}
		seen[in.ID] = true
		out = append(out, in)
	}
	return out, bad, sc.Err()
}

// LoadInstances reads the instance file at path.
func LoadInstances(path string) ([]Instance, []*LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadInstances(f)
}

// Select keeps the instances whose ids only lists (comma-separated; each
// must exist; "" keeps all), then the first limit of them (0: all).
func Select(all []Instance, only string, limit int) ([]Instance, error) {
	out := all
	if only != "" {
		byID := map[string]Instance{}
		for _, in := range all {
			byID[in.ID] = in
		}
		out = nil
		for _, id := range strings.Split(only, ",") {
			id = strings.TrimSpace(id)
			in, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("no instance %q in the file", id)
			}
			out = append(out, in)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
