package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/workflow"
)

// DefaultMaxBody is GitHub's own cap on a webhook payload (25 MB).
const DefaultMaxBody = 25 << 20

// Results reported to Options.Observe (and in the response body).
const (
	ResultDispatched   = "dispatched"
	ResultIgnored      = "ignored"
	ResultDuplicate    = "duplicate"
	ResultBadSignature = "bad_signature"
	ResultTooLarge     = "too_large"
	ResultBadRequest   = "bad_request"
	ResultError        = "error"
)

// Options configures a Handler. Secret, Intake and BotLogin are required.
type Options struct {
	// Secret is the App's webhook secret.
	Secret []byte
	// MaxBody caps the request body in bytes (DefaultMaxBody when 0).
	MaxBody int64
	// Intake records and queues each event in one transaction.
	Intake Intake
	// BotLogin is the App's bot login ("slug[bot]"); its comments and PRs
	// are recognised by it, and "@slug" is its mention.
	BotLogin string
	// Bots are logins of other bots (ISSUESMITH_BOTS): like accounts of
	// type Bot, their issue, comment and review events never start work.
	Bots []string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Observe, when set, is called once per request with the event name,
	// the result (Result* constants) and the time taken (metrics).
	Observe func(event, result string, d time.Duration)
	// Hold, when set, keeps an authorised delivery the Intake could not
	// record (the database did not answer) durably, and the delivery is
	// answered 202 (ResultHeld) instead of 503; Drain records it later.
	Hold Holder
	// AcceptTimeout bounds the Intake's Accept when Hold is set
	// (DefaultAcceptTimeout when 0).
	AcceptTimeout time.Duration
	// Gitea, when set, makes this the endpoint of a Gitea (or Forgejo)
	// server's repository webhooks instead of the GitHub App's (gitea.go):
	// BotLogin is then the Gitea user the bot acts as, without "[bot]".
	Gitea *GiteaOptions
}

// Handler is the /webhook endpoint. It is safe for concurrent use.
type Handler struct {
	opts    Options
	mention string
	routes  map[string]route
}

// verdict is what an event file decides about a payload: a workflow.Event
// to accept (its sender's write permission checked by the intake job when
// authorize is set), or a reason to ignore.
type verdict struct {
	ev   workflow.Event
	keys []string // more keys of the same request (ObjectKey), recorded with the delivery's
	// bodyRepeats: two different requests may come with the same body, so
	// a repeated body under a new delivery id is no replay (its key is the
	// body's and the id's together).
	bodyRepeats bool
	authorize   bool
	ignore      string
	bad         string // a signed payload lacking what its event must carry: 400
}

type route func(h *Handler, payload any) verdict

func ignore(format string, args ...any) verdict { return verdict{ignore: fmt.Sprintf(format, args...)} }

func malformed(format string, args ...any) verdict { return verdict{bad: fmt.Sprintf(format, args...)} }

// as is the checked form of payload.(*T): false for another type or a nil
// pointer (a JSON null body parses to one).
func as[T any](payload any) (*T, bool) {
	e, ok := payload.(*T)
	return e, ok && e != nil
}

// New checks opts and returns the handler.
func New(opts Options) (*Handler, error) {
	switch {
	case len(opts.Secret) == 0:
		return nil, errors.New("webhook handler: secret is required")
	case opts.Intake == nil:
		return nil, errors.New("webhook handler: intake is required")
	case opts.Gitea == nil && !strings.HasSuffix(opts.BotLogin, "[bot]"):
		return nil, fmt.Errorf("webhook handler: bot login %q must end in [bot]", opts.BotLogin)
	case opts.Gitea != nil && (opts.BotLogin == "" || opts.Gitea.InstallationID == 0):
		return nil, errors.New("webhook handler: a Gitea endpoint needs the bot's Gitea login and an installation id")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &Handler{opts: opts, mention: "@" + strings.TrimSuffix(opts.BotLogin, "[bot]")}
	if opts.Gitea != nil {
		h.routes = giteaRoutes
		return h, nil
	}
	h.routes = map[string]route{
		"issues":                      (*Handler).issues,
		"issue_comment":               (*Handler).issueComment,
		"pull_request_review_comment": (*Handler).reviewComment,
		"pull_request_review":         (*Handler).review,
		"pull_request":                (*Handler).pullRequest,
		"installation":                (*Handler).installation,
		"installation_repositories":   (*Handler).installationRepositories,
		"push":                        (*Handler).push,
		"check_run":                   (*Handler).checkRun,
		"check_suite":                 (*Handler).checkSuite,
		"workflow_run":                (*Handler).workflowRun,
	}
	return h, nil
}

// MaxDeliveryID bounds X-GitHub-Delivery (GitHub's are 36-byte GUIDs): a
// longer one is refused with 400 instead of being stored as a key.
const MaxDeliveryID = 128

// ServeHTTP verifies, filters, deduplicates and hands on one delivery
// (through the Intake); it never calls GitHub. Answers: 202 dispatched or
// held; 200 ignored or duplicate; 400 malformed; 401 missing or bad
// signature; 405 not POST; 413 too large; 503 when a dependency failed (the
// delivery is not recorded, so a redelivery works).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	event, delivery := h.headers(r)
	log := h.opts.Logger.With("delivery", clip.Bytes(delivery, MaxDeliveryID, "…"), "event", event)
	code, result, msg := h.handle(w, r, event, delivery, start, log)
	if h.opts.Observe != nil {
		h.opts.Observe(h.metricEvent(event), result, time.Since(start))
	}
	level := slog.LevelInfo
	if code >= 500 {
		level = slog.LevelError
	}
	log.Log(r.Context(), level, "webhook", "status", code, "result", result, "reason", msg, "took", time.Since(start))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "%s: %s\n", result, msg)
}

func (h *Handler) handle(w http.ResponseWriter, r *http.Request, event, delivery string, received time.Time, log *slog.Logger) (int, string, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, ResultBadRequest, "POST only"
	}
	body, sigOK, err := readSigned(w, r, h.opts.Secret, h.opts.MaxBody)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, errNoSignature):
		return http.StatusUnauthorized, ResultBadSignature, "missing or invalid X-Hub-Signature-256"
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, ResultTooLarge, fmt.Sprintf("body over %d bytes", h.opts.MaxBody)
	case err != nil:
		return http.StatusBadRequest, ResultBadRequest, "reading body failed"
	case !sigOK:
		return http.StatusUnauthorized, ResultBadSignature, "missing or invalid X-Hub-Signature-256"
	}
	if event == "" || delivery == "" {
		return http.StatusBadRequest, ResultBadRequest, "missing the event or delivery header"
	}
	if len(delivery) > MaxDeliveryID {
		return http.StatusBadRequest, ResultBadRequest, fmt.Sprintf("X-GitHub-Delivery over %d bytes", MaxDeliveryID)
	}
	if event == "ping" {
		return http.StatusOK, ResultIgnored, "pong"
	}
	rt, ok := h.routes[event]
	if !ok {
		return http.StatusOK, ResultIgnored, "event not handled"
	}
	payload, err := h.parse(event, body)
	if err != nil {
		return http.StatusBadRequest, ResultBadRequest, "payload does not parse"
	}
	v := rt(h, payload)
	if v.bad == "" && v.ignore == "" {
		v.bad = missingFields(v.ev)
	}
	if v.bad != "" {
		return http.StatusBadRequest, ResultBadRequest, v.bad
	}
	if v.ignore == "" && v.ev.InstallationID == 0 {
		v.ignore = "delivery carries no installation"
	}
	if v.ignore != "" {
		return http.StatusOK, ResultIgnored, v.ignore
	}
	v.ev.Delivery, v.ev.GitHubEvent, v.ev.Received = delivery, event, received
	if h.opts.Gitea != nil && v.ev.Kind == workflow.ReviewSubmitted && v.ev.CommentID == 0 {
		v.ev.CommentID = bodyID(body)
	}
	bodyKey := bodyKeyOf(body)
	if v.bodyRepeats {
		bodyKey += ":" + delivery
	}
	return h.admit(r.Context(), v, bodyKey, log)
}

// missingFields names what an event to be handled lacks: a repository-scoped
// event needs the repository's owner and name (they go into GitHub API
// paths), and every one needs its sender.
func missingFields(ev workflow.Event) string {
	repoScoped := ev.Kind != workflow.Installation && ev.Kind != workflow.Repositories
	switch {
	case repoScoped && (ev.Owner == "" || ev.Repo == ""):
		return "event without a repository owner and name"
	case ev.Sender == "":
		return "event without a sender"
	}
	return ""
}

// bodyKeyOf is the dedupe key recorded for a payload alongside its delivery
// id: the signature covers only the body, so a captured signed body resent
// under a fresh X-GitHub-Delivery must still be recognised.
func bodyKeyOf(body []byte) string {
	sum := sha256.Sum256(body)
	return "body:" + hex.EncodeToString(sum[:])
}

// admit accepts (Intake) an event that passed the event file's filters.
func (h *Handler) admit(ctx context.Context, v verdict, bodyKey string, log *slog.Logger) (int, string, string) {
	ev := v.ev
	log = log.With("installation", ev.InstallationID, "repo", ev.Owner+"/"+ev.Repo, "issue", ev.Number, "kind", ev.Kind)
	return h.accept(ctx, v, bodyKey, log)
}

// metricEvent bounds the event label: the header is read before the
// signature is checked, so anyone could invent names.
func (h *Handler) metricEvent(event string) string {
	if _, ok := h.routes[event]; ok || event == "ping" {
		return event
	}
	return "other"
}

// Sign returns the X-Hub-Signature-256 value GitHub sends for body.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// ValidSignature reports whether header is body's HMAC-SHA256 under secret,
// comparing in constant time.
func ValidSignature(secret, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
