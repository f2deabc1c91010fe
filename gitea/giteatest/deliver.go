package giteatest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" // Gitea still sends X-Hub-Signature (sha1) beside the sha256 ones
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
)

// Delivery is one webhook delivery as a Gitea server sends it.
type Delivery struct {
	// Event is X-Gitea-Event: issues, issue_comment, pull_request,
	// pull_request_review_comment, status, push… (Gitea's HookEventType.Event()).
	Event string
	// EventType is X-Gitea-Event-Type, the finer name: issue_label,
	// pull_request_review_approved, pull_request_comment…
	EventType string
	Payload   []byte
	// ID is X-Gitea-Delivery, a fresh UUID when empty.
	ID string
	// Forgejo adds Forgejo's X-Forgejo-* headers beside Gitea's, as a
	// Forgejo server sends them.
	Forgejo bool
}

// Sign sets the headers Gitea 1.26 sets on a delivery of payload
// (services/webhook/deliver.go): the event, its type and the delivery id
// under X-Gitea-*, X-Gogs-* and X-GitHub-*, and the payload's HMAC with
// secret as hex SHA-256 in X-Gitea-Signature (and X-Gogs-Signature),
// "sha256=…" in X-Hub-Signature-256 and "sha1=…" in X-Hub-Signature. With
// no secret the signatures are empty, as Gitea sends them.
func Sign(h http.Header, secret string, d Delivery) {
	var sig1, sig256 string
	if secret != "" {
		m1, m256 := hmac.New(sha1.New, []byte(secret)), hmac.New(sha256.New, []byte(secret))
		_, _ = io.MultiWriter(m1, m256).Write(d.Payload)
		sig1, sig256 = hex.EncodeToString(m1.Sum(nil)), hex.EncodeToString(m256.Sum(nil))
	}
	set := func(prefix string) {
		h[prefix+"-Delivery"] = []string{d.ID}
		h[prefix+"-Event"] = []string{d.Event}
		h[prefix+"-Event-Type"] = []string{d.EventType}
	}
	set("X-Gitea")
	set("X-Gogs")
	set("X-GitHub")
	h.Set("X-Gitea-Signature", sig256)
	h.Set("X-Gogs-Signature", sig256)
	h.Set("X-Hub-Signature", "sha1="+sig1)
	h.Set("X-Hub-Signature-256", "sha256="+sig256)
	h.Set("X-Gitea-Hook-Installation-Target-Type", "repository")
	h["X-GitHub-Hook-Installation-Target-Type"] = []string{"repository"}
	if d.Forgejo {
		set("X-Forgejo")
		h.Set("X-Forgejo-Signature", sig256)
		h.Set("X-Forgejo-Hook-Installation-Target-Type", "repository")
	}
}

// Deliver posts d to url signed with secret, as Gitea's webhook of type
// "gitea" with content type json does, and returns the answer's status and
// body (read whole, for the test to look at).
func Deliver(ctx context.Context, url, secret string, d Delivery) (int, []byte, error) {
	if d.ID == "" {
		d.ID = uuid()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.Payload))
	if err != nil {
		return 0, nil, fmt.Errorf("deliver %s: %w", d.Event, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GiteaServer")
	Sign(req.Header, secret, d)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("deliver %s: %w", d.Event, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("deliver %s: read the answer: %w", d.Event, err)
	}
	return resp.StatusCode, body, nil
}

// uuid is a random version-4 UUID, the shape of Gitea's delivery ids.
func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
