package replay

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TreeVerdicts reuses a finished test run for a tree already judged
// (`bot replay --verdicts FILE`). The key is the clone's whole tree after
// the test patch (git's tree id: every file's path, mode and content), the
// test command and the setup command: the same patch on the same base, run
// by the same command, is judged once. A run of the oracle under --faults
// mostly ends in the clean run's patch, so its tests need not run again;
// every other tree is tested as usual.
//
// Only runs that finished are kept: a timeout or a resource limit depends
// on the machine's load, and a run where no test reported a result may be
// the host's fault (a missing library), so those run again next time.
// Each reused result says from which instance and when its verdict came.
type TreeVerdicts struct {
	mu sync.Mutex
	m  map[string]judgedTree
	f  *os.File
}

// judgedTree is one judged tree: what the test command reported.
type judgedTree struct {
	Key       string            `json:"key"`
	Results   map[string]string `json:"results"`
	Err       string            `json:"err,omitempty"`
	Tail      string            `json:"output_tail,omitempty"`
	Wall      float64           `json:"wall_s"`
	PeakRSSKB int64             `json:"peak_rss_kb,omitempty"`
	Instance  string            `json:"instance_id"`
	At        string            `json:"at"`
}

// OpenTreeVerdicts reads the verdicts of path (none when it does not exist)
// and appends new ones to it.
func OpenTreeVerdicts(path string) (*TreeVerdicts, error) {
	v := &TreeVerdicts{m: map[string]judgedTree{}}
	if b, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(b)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var d judgedTree
			if json.Unmarshal(sc.Bytes(), &d) == nil && d.Key != "" && d.Results != nil {
				v.m[d.Key] = d
			}
		}
		b.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("verdicts %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("verdicts %s: %w", path, err)
	}
	w, err := openResults(path) // same append discipline: whole synced lines
	if err != nil {
		return nil, err
	}
	v.f = w.f
	return v, nil
}

// Close closes the file.
func (v *TreeVerdicts) Close() error {
	if v == nil || v.f == nil {
		return nil
	}
	return v.f.Close()
}

// Len is how many trees are judged.
func (v *TreeVerdicts) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.m)
}

// verdictKey is the key of the clone at dir as it stands (after the test
// patch), for in's commands. It stages every file in the clone's index
// (the clone is the replay's own, thrown away after the instance). A
// repository's setup (setupKey) is part of the key when there is one, so
// keys without one are those of earlier runs.
func verdictKey(ctx context.Context, dir string, in *Instance, setup string) (string, error) {
	if _, err := git(ctx, dir, nil, "add", "-A"); err != nil {
		return "", err
	}
	tree, err := git(ctx, dir, nil, "write-tree")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	parts := []string{strings.TrimSpace(string(tree)), Command(in), in.Setup}
	if setup != "" {
		parts = append(parts, setup)
	}
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (v *TreeVerdicts) get(key string) (judgedTree, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.m[key]
	return d, ok
}

// keep records a finished run's verdict; a run cut by its time limit or a
// resource limit, or one that reported no test, is not kept.
func (v *TreeVerdicts) keep(key string, in *Instance, run *TestRun) error {
	var limit *sandbox.LimitError
	if run.TimedOut || len(run.Results) == 0 || errors.As(run.Err, &limit) {
		return nil
	}
	d := judgedTree{Key: key, Results: run.Results, Tail: lastLines(run.Output, 3), Wall: run.Wall.Round(time.Millisecond).Seconds(),
		PeakRSSKB: run.PeakRSSKB, Instance: in.ID, At: time.Now().UTC().Format(time.RFC3339)}
	if run.Err != nil {
		d.Err = run.Err.Error()
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m[key] = d
	if _, err := v.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return v.f.Sync()
}

// run is the verdict as a TestRun, for the judge.
func (d judgedTree) run(in *Instance) *TestRun {
	tr := &TestRun{Cmd: Command(in), Output: []byte(d.Tail), PeakRSSKB: d.PeakRSSKB, Results: d.Results}
	if d.Err != "" {
		tr.Err = errors.New(d.Err)
	}
	return tr
}
