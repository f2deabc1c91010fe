package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// Bodies trickled in a byte at a time (a slowloris on /webhook) are cut off
// by the server's read timeout: every such connection is ended by the
// server long before its body could arrive, so they cannot pile up and hold
// connections or in-flight bytes, and the server keeps answering.
func TestServeCutsOffTrickledBodies(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	model := llmtest.NewServer(t, nil)
	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL())
	const timeout = time.Second
	srv, err := New(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), Tuning{ReadTimeout: timeout})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil { // not what this test checks: clients may still hold connections
			t.Logf("serve: %v", err)
		}
	})

	const conns = 40
	start := time.Now()
	ended := make([]time.Duration, conns)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ended[i] = trickle(t, ln.Addr().String(), i)
		}()
	}
	wg.Wait()
	for i, d := range ended {
		// The body needs 100,000 bytes at 10 bytes/s: only the server's
		// read timeout can end the connection this early.
		require.Less(t, d, 10*timeout, "connection %d ended after %s", i, d)
		require.GreaterOrEqual(t, d, timeout/2, "connection %d ended after %s, before any timeout", i, d)
	}
	t.Logf("%d trickled bodies all cut off within %s", conns, time.Since(start).Round(time.Millisecond))

	resp, err := http.Get("http://" + ln.Addr().String() + "/readyz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// trickle posts a well-formed but wrongly signed delivery whose declared
// body it sends a byte every 100 ms, and returns how long the server took to
// end the exchange (an answer or a closed connection).
func trickle(t *testing.T, addr string, i int) time.Duration {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer c.Close()
	start := time.Now()
	head := fmt.Sprintf("POST /webhook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"X-GitHub-Event: issues\r\nX-GitHub-Delivery: trickle-%d\r\nX-Hub-Signature-256: sha256=%s\r\n"+
		"Content-Length: 100000\r\n\r\n{", addr, i, strings.Repeat("0", 64))
	if _, err := c.Write([]byte(head)); err != nil {
		t.Error(err)
		return 0
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	defer close(done)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = http.ReadResponse(bufio.NewReader(c), nil)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("connection %d still open after 30 s", i)
	}
	return time.Since(start)
}
