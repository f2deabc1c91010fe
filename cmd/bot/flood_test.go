package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUnsignedFloodRSS is a measurement, not a gate (set ISSUESMITH_FLOOD=1):
// 60 concurrent unsigned 24 MB deliveries against the real `bot serve`
// process (wrongly but well-formedly signed, so each must be read to be
// refused), printing the server's resident memory before and its peak
// (VmHWM) after, and the answers. The in-flight body budget (100 MB by
// default) is what bounds the peak.
func TestUnsignedFloodRSS(t *testing.T) {
	if os.Getenv("ISSUESMITH_FLOOD") != "1" {
		t.Skip("measurement: set ISSUESMITH_FLOOD=1")
	}
	e := newE2E(t, "http://127.0.0.1:1/v1")
	if v := os.Getenv("ISSUESMITH_FLOOD_IN_FLIGHT"); v != "" { // e.g. 4000000000: no effective bound
		e.env = append(e.env, "ISSUESMITH_WEBHOOK_MAX_IN_FLIGHT="+v)
	}
	e.start()
	pid := e.child.Process.Pid
	before := procStatus(t, pid, "VmRSS")
	body := bytes.Repeat([]byte("x"), 24<<20)
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, "http://"+e.addr+"/webhook", bytes.NewReader(body))
			req.Header.Set("X-GitHub-Event", "issues")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("flood-%d", i))
			// Well-formed but wrong: the body must be read to find out.
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := http.DefaultClient.Do(req)
			key := "error"
			if err == nil {
				key = fmt.Sprint(resp.StatusCode)
				resp.Body.Close()
			}
			mu.Lock()
			codes[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("60 unsigned 24 MB bodies in %s: RSS before %s, peak %s; answers %v",
		time.Since(start).Round(time.Millisecond), before, peak, codes)
}

// procStatus returns one field of /proc/<pid>/status, e.g. "VmHWM".
func procStatus(t *testing.T, pid int, field string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
