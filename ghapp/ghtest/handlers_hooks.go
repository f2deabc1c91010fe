package ghtest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// HookAttempt is one attempt in the App's webhook delivery log: what GitHub
// sent (Payload, under GUID) and how the App's server answered (Status; 0
// when it could not be reached).
type HookAttempt struct {
	ID          int64
	GUID        string
	Event       string
	Action      string
	Status      int
	Redelivery  bool
	DeliveredAt time.Time
	Payload     []byte
}

// hookLog is the delivery log and where redeliveries go.
type hookLog struct {
	attempts []HookAttempt // oldest first
	url      string        // the App's webhook URL; "" drops redeliveries
	secret   []byte
	redeliv  []string // GUIDs asked to be redelivered, in order
}

// SetWebhook makes POST /app/hook/deliveries/{id}/attempts resend the
// attempt's payload (same GUID, fresh signature) to url, as GitHub does.
func (s *Server) SetWebhook(url string, secret []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.hooks.url, s.st.hooks.secret = url, secret
}

// LogDelivery adds an attempt to the delivery log (a test that delivered a
// webhook itself reports its outcome here) and returns its id.
func (s *Server) LogDelivery(a HookAttempt) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logAttempt(a)
}

func (s *Server) logAttempt(a HookAttempt) int64 {
	s.st.nextID++
	a.ID = s.st.nextID
	if a.DeliveredAt.IsZero() {
		a.DeliveredAt = time.Now()
	}
	s.st.hooks.attempts = append(s.st.hooks.attempts, a)
	return a.ID
}

// Redeliveries returns the GUIDs the App asked to redeliver, in order.
func (s *Server) Redeliveries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.st.hooks.redeliv...)
}

// DeliveryLog returns the attempts so far, oldest first.
func (s *Server) DeliveryLog() []HookAttempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]HookAttempt(nil), s.st.hooks.attempts...)
}

func hookItem(a HookAttempt) obj {
	status := "OK"
	if a.Status < 200 || a.Status > 299 {
		status = "Invalid HTTP Response: " + strconv.Itoa(a.Status)
	}
	return obj{"id": a.ID, "guid": a.GUID, "delivered_at": ts(a.DeliveredAt), "redelivery": a.Redelivery,
		"duration": 0.01, "status": status, "status_code": a.Status, "event": a.Event, "action": nullable(a.Action),
		"installation_id": nil, "repository_id": nil}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listHookDeliveries serves GET /app/hook/deliveries: newest first, a page
// of per_page (30 by default) starting at the cursor (an attempt id), with
// the Link header naming the next cursor.
func listHookDeliveries(c *call) response {
	q := c.r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	cursor, _ := strconv.ParseInt(q.Get("cursor"), 10, 64)
	all := c.s.st.hooks.attempts
	var page []any
	next := int64(0)
	for i := len(all) - 1; i >= 0; i-- {
		a := all[i]
		if cursor != 0 && a.ID > cursor {
			continue
		}
		if len(page) == per {
			next = a.ID
			break
		}
		page = append(page, hookItem(a))
	}
	resp := ok(http.StatusOK, page)
	if page == nil {
		resp = ok(http.StatusOK, []any{})
	}
	if next != 0 {
		u := *c.r.URL
		u.Scheme, u.Host = "http", c.r.Host
		qq := url.Values{"per_page": {strconv.Itoa(per)}, "cursor": {strconv.FormatInt(next, 10)}}
		u.RawQuery = qq.Encode()
		resp.header = http.Header{"Link": {"<" + u.String() + `>; rel="next"`}}
	}
	return resp
}

// redeliverHook serves POST /app/hook/deliveries/{delivery_id}/attempts: it
// records the request and, with a webhook set, resends the payload in the
// background (the App's server may call the fake while handling it) and
// logs the new attempt.
func redeliverHook(c *call) response {
	id, _ := strconv.ParseInt(c.param("delivery_id"), 10, 64)
	var found *HookAttempt
	for i := range c.s.st.hooks.attempts {
		if c.s.st.hooks.attempts[i].ID == id {
			found = &c.s.st.hooks.attempts[i]
		}
	}
	if found == nil {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	a := *found
	c.s.st.hooks.redeliv = append(c.s.st.hooks.redeliv, a.GUID)
	if hook := c.s.st.hooks; hook.url != "" {
		go c.s.resend(hook.url, hook.secret, a)
	}
	return ok(http.StatusAccepted, obj{})
}

// resend posts a's payload to the App's webhook and logs the attempt.
func (s *Server) resend(hookURL string, secret []byte, a HookAttempt) {
	req, err := http.NewRequest(http.MethodPost, hookURL, bytes.NewReader(a.Payload))
	status := 0
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", a.Event)
		req.Header.Set("X-GitHub-Delivery", a.GUID)
		req.Header.Set("X-Hub-Signature-256", sign(secret, a.Payload))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
	}
	a.Status, a.Redelivery, a.DeliveredAt = status, true, time.Time{}
	s.LogDelivery(a)
	s.changes.Ring() // the fake's own change: Wait looks again
}

// sign is the X-Hub-Signature-256 GitHub sends for body.
func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Deliver sends a new delivery to the webhook set by SetWebhook as GitHub
// does (signed, with guid as X-GitHub-Delivery, giving up after timeout as
// GitHub does after 10 s), logs the attempt and returns the answer's status
// (0: no answer).
func (s *Server) Deliver(guid, event string, payload []byte, timeout time.Duration) int {
	s.mu.Lock()
	hook := s.st.hooks
	s.mu.Unlock()
	status := 0
	req, err := http.NewRequest(http.MethodPost, hook.url, bytes.NewReader(payload))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", guid)
		req.Header.Set("X-Hub-Signature-256", sign(hook.secret, payload))
		client := &http.Client{Timeout: timeout}
		if resp, err := client.Do(req); err == nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
	}
	s.LogDelivery(HookAttempt{GUID: guid, Event: event, Status: status, Payload: payload})
	return status
}
