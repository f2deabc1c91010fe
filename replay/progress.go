package replay

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"

	"github.com/issuesmith/issuesmith/work"
)

// DoneEvent is the work.EventItem that tells r's end: its ID, Status as
// State, its wall time and notes (faults, tokens, cost) as Detail, and its
// reason with any stated limits as Reason.
func DoneEvent(r Result) work.Event {
	return work.Event{Kind: work.EventItem, ID: r.ID, State: r.Status,
		Detail: fmt.Sprintf("(%.0fs)%s", r.Wall, faultNote(r)+usageNote(r)), Reason: r.Reason + limitNote(r)}
}

// Lines prints a run's course as one plain line per finished instance
// (logs, CI); Hear is its work.Progress.
type Lines struct {
	W io.Writer

	mu          sync.Mutex
	total, done int
}

// Hear notes the run's size and prints each finished instance; stages say
// nothing: lines are per instance.
func (p *Lines) Hear(ev work.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case work.EventCount:
		p.total, p.done = ev.Of, ev.Count
		fmt.Fprintf(p.W, "replay: %d instances, %d already in the results file\n", ev.Of, ev.Count)
	case work.EventItem:
		p.done++
		fmt.Fprintf(p.W, "replay: [%d/%d] %s %s %s %s\n", p.done, p.total, ev.ID, ev.State, ev.Detail, ev.Reason)
	}
}

// Bar draws a run's course as a bar redrawn in place on a terminal, with
// each finished instance printed above it; Hear is its work.Progress.
type Bar struct {
	W io.Writer

	mu                    sync.Mutex
	total, done, resolved int
	running               map[string]string
}

// Hear draws the empty bar at the start, notes what an instance is doing,
// and prints each finished one above the bar, redrawing it.
func (p *Bar) Hear(ev work.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case work.EventCount:
		p.total, p.done, p.running = ev.Of, ev.Count, map[string]string{}
	case work.EventStage:
		p.running[ev.ID] = ev.Stage
	case work.EventItem:
		delete(p.running, ev.ID)
		p.done++
		if ev.State == StatusResolved {
			p.resolved++
		}
		fmt.Fprintf(p.W, "\r\033[K%s %s %s %s\n", ev.ID, ev.State, ev.Detail, ev.Reason)
	default:
		return
	}
	p.draw()
}

func (p *Bar) draw() {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = width * p.done / p.total
	}
	var now []string
	for id, st := range p.running {
		now = append(now, shortID(id)+" "+st)
	}
	fmt.Fprintf(p.W, "\r\033[K[%s%s] %d/%d resolved %d  %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		p.done, p.total, p.resolved, strings.Join(now, ", "))
}

func shortID(id string) string {
	if i := strings.LastIndexAny(id, "_-"); i > 0 && len(id)-i > 9 {
		return id[:i+9]
	}
	return id
}

// ProgressFor is a bar on a terminal, plain lines otherwise (logs, CI).
func ProgressFor(w io.Writer) work.Progress {
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return (&Bar{W: w}).Hear
	}
	return (&Lines{W: w}).Hear
}

// faultNote is " [3 faults: +2 calls, +5k tokens of 14 calls, 40k tokens]"
// for an oracle run with --faults, else "".
func faultNote(r Result) string {
	f := r.Faults
	if f == nil {
		return ""
	}
	return fmt.Sprintf(" [%d faults: +%d calls, +%s tokens of %d calls, %s tokens]", f.Injected(), f.ExtraCalls,
		kilo(f.ExtraTokens), f.Calls, kilo(f.Tokens))
}

// limitNote is "; limits: a: why; b: why" for a result with stated
// limits, else "".
func limitNote(r Result) string {
	if len(r.Limits) == 0 {
		return ""
	}
	return "; limits: " + strings.Join(r.Limits, "; ")
}

// usageNote is " [prompt 74.0k, cached 60.2k, uncached 13.8k, completion
// 3.1k tokens]" for a run that used a model, else "".
func usageNote(r Result) string {
	u := r.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return ""
	}
	cost := ""
	if r.Cost > 0 {
		cost = fmt.Sprintf(", $%.4f", r.Cost)
	}
	return fmt.Sprintf(" [prompt %s, cached %s, uncached %s, completion %s tokens%s]", kilo(u.PromptTokens),
		kilo(u.CachedTokens), kilo(u.PromptTokens-u.CachedTokens), kilo(u.CompletionTokens), cost)
}

// kilo writes a token count as 950, 12.3k or 4.5M.
func kilo(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
