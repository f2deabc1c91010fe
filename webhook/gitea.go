package webhook

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// GiteaOptions makes a Handler the endpoint of a Gitea server's webhooks
// (Forgejo's too: it keeps Gitea's payloads and sends its headers beside
// X-Forgejo-* ones). Gitea signs the body as GitHub does
// (X-Hub-Signature-256, with the hook's secret) and names the event in
// X-Gitea-Event-Type; its payloads are its own (gitea_payloads.go).
type GiteaOptions struct {
	// InstallationID is the id every event of this server carries: the
	// server's forge in the store (negative, apart from GitHub's ids).
	InstallationID int64
}

// headers returns the event name and delivery id of r: GitHub's headers,
// or for a Gitea endpoint the detailed event type (X-Gitea-Event-Type,
// which tells a label change from an issue edit) and the delivery's UUID
// under a "gitea:" prefix (its own key space).
func (h *Handler) headers(r *http.Request) (event, delivery string) {
	if h.opts.Gitea == nil {
		return r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery")
	}
	first := func(names ...string) string {
		for _, n := range names {
			if v := r.Header.Get(n); v != "" {
				return v
			}
		}
		return ""
	}
	event = first("X-Gitea-Event-Type", "X-Forgejo-Event-Type")
	if d := first("X-Gitea-Delivery", "X-Forgejo-Delivery"); d != "" {
		delivery = "gitea:" + d
	}
	return event, delivery
}

// parse decodes a delivery's body: go-github's types for GitHub, the
// payload types of gitea_payloads.go for a Gitea endpoint.
func (h *Handler) parse(event string, body []byte) (any, error) {
	if h.opts.Gitea == nil {
		return github.ParseWebHook(event, body)
	}
	p, ok := giteaPayloads[event]
	if !ok {
		return nil, fmt.Errorf("gitea event %q has no payload type", event)
	}
	v := p()
	if err := json.Unmarshal(body, v); err != nil {
		return nil, err
	}
	return v, nil
}

// bodyID is a positive id derived from a delivery's body, for a Gitea
// review: its delivery carries no review or comment id, and the workflow
// keys a request by one. The same body (a redelivery) gives the same id.
func bodyID(body []byte) int64 {
	sum := sha256.Sum256(body)
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 1)
}
