package workflow

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/issuesmith/issuesmith/store"
)

// Bounds of a rate-limited job's wait: at least a moment (a reset time
// already past, clock skew), at most an hour (GitHub's primary window).
const (
	minRateWait = time.Second
	maxRateWait = time.Hour
)

// rateLimited reports whether err is GitHub refusing for a rate limit the
// transport did not sit out (a *RateLimitError, which the GitHub adapter
// makes of its client's), and how long the job should wait before it
// runs again. Such a wait is not a failure: it must not use up the job's
// attempts and end the run.
func rateLimited(err error) (time.Duration, bool) {
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		return 0, false
	}
	return min(max(time.Until(rl.Reset), minRateWait), maxRateWait), true
}

// rateWait is the one place a job meets GitHub's rate limit: every job
// kind's error passes through it, and a rate limit becomes River's snooze
// until the reset (a snooze is no attempt: the job is never discarded for
// it). The stage jobs snooze themselves first (settle), to say so on the
// issue.
type rateWait struct {
	river.MiddlewareDefaults
	e *Engine
}

// Work implements rivertype.WorkerMiddleware.
func (m *rateWait) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	wait, ok := rateLimited(err)
	if !ok {
		return err
	}
	kind := strings.TrimPrefix(job.Kind, "issuesmith_")
	m.e.log.Warn("GitHub's rate limit: the job runs again when it resets", "kind", kind, "job", job.ID, "wait", wait, "err", err)
	m.e.observe(kind, "snoozed")
	return river.JobSnooze(wait)
}

// waitingPrefix starts the progress comment's line while a run waits for
// GitHub's rate limit; waitingLayout is its time.
const (
	waitingPrefix = "waiting for GitHub's rate limit until "
	waitingLayout = "2006-01-02 15:04:05 UTC"
)

// waitingLine is the progress comment's "Now:" line while a run waits for
// GitHub's rate limit.
func waitingLine(until time.Time) string {
	return waitingPrefix + until.UTC().Format(waitingLayout) + "; the run carries on by itself then"
}

// saidUntil is the time a waiting line names (zero when step is none).
func saidUntil(step string) time.Time {
	rest, ok := strings.CutPrefix(step, waitingPrefix)
	if !ok {
		return time.Time{}
	}
	at, err := time.Parse(waitingLayout, rest[:min(len(rest), len(waitingLayout))])
	if err != nil {
		return time.Time{}
	}
	return at
}

// sayWaiting says once, in the run's progress comment, that the run waits
// for GitHub's rate limit until when: its "Now:" line, edited in place. A
// later wait is said again only when it ends later than the one said. The
// write is reserved (Reserved): when the client's pacing held the stage
// back, the reserve it keeps lets the line through. Only when GitHub's
// limit is spent outright (someone else spent it, or a secondary limit)
// may it be refused: the run then carries on without the line, and the
// stage's next progress replaces it anyway.
func (e *Engine) sayWaiting(ctx context.Context, log *slog.Logger, runID int64, wait time.Duration) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	run, err := getRun(ctx, e.d.Store, runID)
	if err != nil || !run.Open() {
		return
	}
	until := time.Now().Add(wait).Truncate(time.Second)
	if !saidUntil(run.Step).Before(until) {
		return // said, until then or later
	}
	gh, err := e.d.GitHub.Client(ctx, run.InstallationID)
	if err != nil {
		log.Warn("the rate-limit wait not said on the issue", "err", err)
		return
	}
	run.Step = waitingLine(until)
	s := &runJob{e: e, log: log, run: run, gh: recordingGitHub{GitHub: gh, forge: e.forgeName(run.InstallationID)}}
	if err := s.progress(ctx); err != nil { // reserved: see Reserved
		log.Warn("the rate-limit wait not said on the issue", "err", err)
		return
	}
	if err := saveOpenRun(ctx, e.d.Store, run); err != nil && !errors.Is(err, store.ErrStale) {
		log.Warn("the rate-limit wait said but not saved", "err", err)
	}
}

// reservedKey marks a context whose GitHub calls may use the requests the
// client keeps in reserve when it paces an installation (Reserved).
type reservedKey struct{}

func reserved(ctx context.Context) context.Context {
	return context.WithValue(ctx, reservedKey{}, true)
}

// Reserved reports whether ctx's GitHub calls may use the installation's
// reserve: the writes of a run's progress comment (session.progress), the
// one that says the run waits for the rate limit above all. Every other
// call is held back once the installation's remaining requests are down to
// the reserve, and its job snoozes until the reset. The GitHub adapter
// passes the mark on to its client (ghport: ghapp.WithReserve).
func Reserved(ctx context.Context) bool { v, _ := ctx.Value(reservedKey{}).(bool); return v }

// sayLimited is what settle says of a stage that met a rate limit: the
// snooze, after the line on the issue.
func (e *Engine) sayLimited(ctx context.Context, log *slog.Logger, run *Run, stage string, wait time.Duration, err error) error {
	log.Warn("GitHub's rate limit: the stage runs again when it resets", "wait", wait, "err", err)
	e.observe(stage, "snoozed")
	e.sayWaiting(ctx, log, run.ID, wait)
	return river.JobSnooze(wait)
}

var _ rivertype.WorkerMiddleware = (*rateWait)(nil)
