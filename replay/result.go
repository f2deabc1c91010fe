package replay

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/replay/oracle"
)

// Statuses of a Result.
const (
	StatusResolved    = "resolved"
	StatusTestsFailed = "tests_failed"
	// StatusTestsSkipped: nothing failed or broke, but a FAIL_TO_PASS test
	// was skipped by the environment (a missing dependency): not judged.
	StatusTestsSkipped = "tests_skipped"
	StatusNotApplied   = "not_applied"
	StatusStageFailed  = "stage_failed:" // + the stage: explore, plan, code, tests
	StatusError        = "error"
)

// Result is one instance's line of the results file.
type Result struct {
	ID     string `json:"instance_id"`
	Model  string `json:"model"`
	Status string `json:"status"`
	// Reason is why, in one line.
	Reason string `json:"reason"`
	// Changed are the files the solver changed; Gold the gold patch's.
	Changed []string `json:"files_changed,omitempty"`
	Gold    []string `json:"gold_files,omitempty"`
	// Failing and Broken name the FAIL_TO_PASS / PASS_TO_PASS tests that
	// did not pass.
	Failing []string `json:"fail_to_pass_failing,omitempty"`
	Broken  []string `json:"pass_to_pass_broken,omitempty"`
	// Skipped names the listed tests the environment skipped, with why.
	Skipped []string  `json:"skipped,omitempty"`
	Usage   llm.Usage `json:"usage"`
	Cost    float64   `json:"cost,omitempty"`
	// Calls counts the model calls (oracle); Faults is what the oracle's
	// injected faults cost (--faults).
	Calls  int           `json:"model_calls,omitempty"`
	Faults *oracle.Stats `json:"faults,omitempty"`
	// Stages is the wall time of each stage in seconds (clone, solve's
	// explore/plan/code or gold, tests), and Wall the whole instance's.
	Stages []StageWall `json:"stages"`
	Wall   float64     `json:"wall_s"`
	// PeakRSSKB is the peak resident memory of the test command's process
	// tree (KiB), when the platform reports it.
	PeakRSSKB int64 `json:"test_peak_rss_kb,omitempty"`
	// Reused, with --verdicts, names the instance (and when) whose test
	// run of the same tree judged this one: its tests did not run again.
	Reused string `json:"verdict_reused_from,omitempty"`
	// SessionBytes is what the run's session stored (--sessions).
	SessionBytes int64 `json:"session_bytes,omitempty"`
	// Limits name what the solver stated it left out (Solution.Limits).
	Limits []string `json:"limits,omitempty"`
	At     string   `json:"at"`
}

// StageWall is one stage's wall time.
type StageWall struct {
	Stage string  `json:"stage"`
	Wall  float64 `json:"wall_s"`
}

func (r *Result) stage(name string, d time.Duration) {
	r.Stages = append(r.Stages, StageWall{Stage: name, Wall: d.Round(time.Millisecond).Seconds()})
}

// ReadResults reads a results file, the last line of an instance winning;
// a truncated last line (an interrupted write) is ignored. A missing file
// is no results.
func ReadResults(path string) (map[string]Result, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Result{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readResults(f)
}

func readResults(r io.Reader) (map[string]Result, error) {
	out := map[string]Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var res Result
		if json.Unmarshal(sc.Bytes(), &res) != nil || res.ID == "" || res.Status == "" {
			continue
		}
		out[res.ID] = res
	}
	return out, sc.Err()
}

// resultWriter appends results, one whole line per write, synced.
type resultWriter struct {
	mu sync.Mutex
	f  *os.File
}

func openResults(path string) (*resultWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// A line cut by an interrupted write must not glue onto the next one.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		if last, err := lastByte(path); err == nil && last != '\n' {
			_, _ = f.Write([]byte{'\n'})
		}
	}
	return &resultWriter{f: f}, nil
}

func lastByte(path string) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, 1)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	_, err = f.ReadAt(b, fi.Size()-1)
	return b[0], err
}

func (w *resultWriter) write(r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return w.f.Sync()
}

func (w *resultWriter) Close() error { return w.f.Close() }
