package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/preagent"
)

// probeTimeout bounds the start-up probe of all models.
const probeTimeout = 3 * time.Minute

// probeRoles are the roles whose models the probe tries.
var probeRoles = []llm.Role{llm.RoleExplorer, llm.RoleObserver, llm.RolePlanner, llm.RoleCoder, llm.RoleSummarizer, llm.RoleApply}

// startProbe makes one tiny tool call per configured model in the
// background (llm.Client.Probe), logs what each said and shows it on
// /readyz. It never blocks or stops the start: an endpoint that is down is
// reported like any other finding. The returned func waits for it.
func (s *Server) startProbe(ctx context.Context) func() {
	lc, err := s.cfg.Model.LLM()
	if err != nil {
		return func() {}
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return func() {}
	}
	// The explorer's first request is the largest a run sends first: the
	// probe checks it and a reply's cap fit the window the server states.
	client.ExpectPrompt(llm.RoleExplorer, preagent.FirstRequestTokens())
	var wg sync.WaitGroup
	wg.Go(func() {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		var lines []string
		for _, p := range client.ProbeAll(pctx, probeRoles...) {
			lines = append(lines, p.String())
			level := slog.LevelInfo
			if !p.OK() {
				level = slog.LevelWarn
			}
			s.log.Log(ctx, level, "model probe: "+p.String(), "role", p.Role, "model", p.Model, "took", p.Took)
		}
		s.probe.Store(&lines)
		close(s.probed)
	})
	return wg.Wait
}

// probeLines is what the probe found, for /readyz ("model probe: running"
// until it ends).
func (s *Server) probeLines() []string {
	if p := s.probe.Load(); p != nil {
		return *p
	}
	return []string{"running"}
}
