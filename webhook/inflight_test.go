package webhook_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/issuesmith/issuesmith/webhook"
)

// TestLimiterBoundsBodyBytes: while one request holds most of the budget, a
// second one that does not fit is answered 503 with Retry-After without
// being read, and counted; a small one still passes; once the first ends
// the large one fits again. A body declared over the cap gets 413.
func TestLimiterBoundsBodyBytes(t *testing.T) {
	t.Parallel()
	const maxBody, budget = 1000, 1500
	entered, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var counted []string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if len(body) == 900 {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusAccepted)
	})
	lim := webhook.NewLimiter(inner, budget, maxBody, nil, func(event, result string) {
		mu.Lock()
		defer mu.Unlock()
		counted = append(counted, event+"/"+result)
	})
	srv := httptest.NewServer(lim)
	defer srv.Close()
	post := func(n int) *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(make([]byte, n)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	done := make(chan *http.Response)
	go func() { done <- post(900) }()
	<-entered
	if r := post(800); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("over budget: status %d, Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := post(500); r.StatusCode != http.StatusAccepted {
		t.Errorf("within budget: status %d", r.StatusCode)
	}
	if r := post(1001); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("over the cap: status %d", r.StatusCode)
	}
	close(release)
	if r := <-done; r.StatusCode != http.StatusAccepted {
		t.Errorf("first request: %d", r.StatusCode)
	}
	if r := post(800); r.StatusCode != http.StatusAccepted {
		t.Errorf("after release: status %d", r.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"unverified/shed", "unverified/too_large"}
	if len(counted) != 2 || counted[0] != want[0] || counted[1] != want[1] {
		t.Errorf("counted %v, want %v", counted, want)
	}
}
