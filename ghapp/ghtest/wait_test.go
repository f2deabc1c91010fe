package ghtest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Wait wakes on the request that makes its condition true, not on a
// timer, and says false when the time ran out first.
func TestWaitWakesOnTheServedRequest(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	s.AddRepo(Repo{Owner: "o", Name: "r"})
	n := s.AddIssue("o", "r", Issue{Title: "t", User: "alice"})
	tok := "token " + getToken(t, s)
	hasComment := func() bool { return len(s.Comments("o", "r", n)) > 0 }

	require.False(t, s.Wait(50*time.Millisecond, hasComment), "no comment yet")

	posted := make(chan time.Time, 1)
	go func() {
		<-time.After(20 * time.Millisecond)
		code, _ := do(t, s, "POST", fmt.Sprintf("/repos/o/r/issues/%d/comments", n), tok, `{"body":"hi"}`)
		assert.Equal(t, http.StatusCreated, code)
		posted <- time.Now()
	}()
	require.True(t, s.Wait(time.Minute, hasComment))
	woke := time.Now()
	assert.WithinDuration(t, <-posted, woke, time.Second, "woken by the request, not a poll or the timeout")
	require.True(t, s.Wait(0, hasComment), "a condition that holds returns at once")
}
