package webhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignatureIsRequired(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	m := payload(t, "issues.labeled", r.gh.Installation())
	for _, tc := range []struct {
		name string
		sig  func(body []byte) string
	}{
		{"missing", func([]byte) string { return "none" }},
		{"signed with another secret", func(b []byte) string { return Sign([]byte("guess"), b) }},
		{"sha1 form", func([]byte) string { return "sha1=0123456789abcdef0123456789abcdef01234567" }},
		{"not hex", func([]byte) string { return "sha256=zz" }},
		{"signature of another body", func([]byte) string { return Sign(secret, []byte(`{"action":"labeled"}`)) }},
	} {
		d := r.newDelivery("issues", m)
		d.sig = tc.sig(d.body)
		code, _ := r.send(d)
		assert.Equal(t, http.StatusUnauthorized, code, tc.name)
	}
	// A body altered after signing fails too.
	d := r.newDelivery("issues", m)
	d.sig = Sign(secret, d.body)
	d.body = bytes.Replace(d.body, []byte(`"bug"`), []byte(`"issuesmith"`), 1)
	code, _ := r.send(d)
	assert.Equal(t, http.StatusUnauthorized, code)

	assert.Empty(t, r.disp.got())
	assert.Zero(t, r.gh.Calls(permOp), "nothing unauthenticated reaches GitHub")
}

func TestBodyIsCapped(t *testing.T) {
	t.Parallel()
	r := newRig(t, 4096)
	m := payload(t, "issues.labeled", r.gh.Installation())
	set(m, "issue.body", string(bytes.Repeat([]byte("x"), 8192)))
	code, _ := r.send(r.newDelivery("issues", m))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Empty(t, r.disp.got())
}

func TestReplayedDeliveryIsIgnored(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	d := r.newDelivery("issues", payload(t, "issues.labeled", r.gh.Installation()))
	code, _ := r.send(d)
	require.Equal(t, http.StatusAccepted, code)
	code, body := r.send(d)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, ResultDuplicate)
	assert.Len(t, r.disp.got(), 1)
	assert.Zero(t, r.gh.Calls(permOp), "no API call at all")
}

// TestSendersWriteIsTheJobsToCheck: a delivery that starts or steers work
// is recorded with CheckWrite set and answered 202 before any call to
// GitHub, whatever the sender's role: the intake job asks GitHub
// (workflow's checkWrite), where a rate limit only delays it.
func TestSendersWriteIsTheJobsToCheck(t *testing.T) {
	t.Parallel()
	for _, role := range []string{"read", "triage", "none", "", "write"} {
		t.Run("role "+role, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, 0)
			m := payload(t, "issue_comment.created", r.gh.Installation())
			set(m, "comment.body", "/implement")
			set(m, "sender.login", "mallory")
			if role != "" {
				r.gh.SetPermission(owner, repo, "mallory", role)
			}
			code, body := r.send(r.newDelivery("issue_comment", m))
			assert.Equal(t, http.StatusAccepted, code, body)
			if got := r.disp.got(); assert.Len(t, got, 1) {
				assert.True(t, got[0].CheckWrite)
				assert.Equal(t, "mallory", got[0].Sender)
			}
			assert.Empty(t, r.gh.Requests(), "no call to GitHub")
		})
	}
}

// TestNoGitHubCallBeforeRecording: with the installation's limit spent
// (403 and 429, the reset 10 minutes away), a labelled issue is recorded
// and answered 202 at once, never 503 and never after a wait: GitHub is
// not asked.
func TestNoGitHubCallBeforeRecording(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, 0)
			r.gh.Inject(r.gh.PrimaryLimit(ghtest.AnyOp, status, time.Now().Add(10*time.Minute), -1))
			start := time.Now()
			code, body := r.send(r.newDelivery("issues", payload(t, "issues.labeled", r.gh.Installation())))
			assert.Equal(t, http.StatusAccepted, code, body)
			assert.Less(t, time.Since(start), 2*time.Second)
			if got := r.disp.got(); assert.Len(t, got, 1) {
				assert.True(t, got[0].CheckWrite)
			}
			assert.Empty(t, r.gh.Requests())
		})
	}
}

func TestDispatchFailureForgetsDelivery(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	r.disp.fail = errQueueDown
	d := r.newDelivery("issues", payload(t, "issues.unlabeled", r.gh.Installation()))
	code, _ := r.send(d)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	r.disp.mu.Lock()
	r.disp.fail = nil
	r.disp.mu.Unlock()
	code, _ = r.send(d)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Len(t, r.disp.got(), 1)
}

func TestNewChecksOptions(t *testing.T) {
	t.Parallel()
	ok := Options{Secret: secret, Intake: nil, BotLogin: "x[bot]"}
	_, err := New(ok)
	assert.Error(t, err, "intake missing")
	ok.Intake = &recorder{}
	_, err = New(ok)
	assert.NoError(t, err)
	ok.BotLogin = "x"
	_, err = New(ok)
	assert.Error(t, err, "bot login without [bot]")
	ok.BotLogin, ok.Secret = "x[bot]", nil
	_, err = New(ok)
	assert.Error(t, err, "secret missing")
}

func TestObservedEventNamesAreBounded(t *testing.T) {
	t.Parallel()
	var got []string
	h, err := New(Options{Secret: secret, Intake: &recorder{},
		BotLogin: "x[bot]", Observe: func(event, result string, _ time.Duration) { got = append(got, event+":"+result) }})
	require.NoError(t, err)
	for _, ev := range []string{"issues", "made-up-" + strconv.Itoa(12345), "ping"} {
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader([]byte("{}")))
		req.Header.Set("X-GitHub-Event", ev)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	assert.Equal(t, []string{"issues:bad_signature", "other:bad_signature", "ping:bad_signature"}, got)
}
