package agents

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/work"
)

// The explorer's compressions and observer interventions reach the
// session the context carries, beside whatever Progress already hears;
// without a session the options are left as they were.
func TestExplorerRecordsCompressionsAndObserverNotes(t *testing.T) {
	st := storetest.SQLite(t)
	rec := session.Start(t.Context(), st, store.Session{InstallationID: 1, RunID: 1, Owner: "acme", Repo: "app", Issue: 3}, session.Options{})
	require.NotNil(t, rec)
	rec.Begin(t.Context(), session.StageExplore, "explore 1")
	var heard []work.EventKind
	base := preagent.Options{Progress: func(ev work.Event) { heard = append(heard, ev.Kind) }}

	require.Nil(t, explorerRecording(context.Background(), base).WrapTool, "no session: nothing wrapped")
	opts := explorerRecording(session.With(t.Context(), rec), base)
	require.NotNil(t, opts.WrapTool)
	opts.Progress(work.Event{Kind: work.EventStep, Step: 1})
	opts.Progress(work.Event{Kind: work.EventCompress, Detail: "model verdicts"}) // a model call, recorded as one
	opts.Progress(work.Event{Kind: work.EventCompress, Before: 9000, PromptTokens: 2500, Detail: "9000 → 2500 prompt tokens; record holds 4 files"})
	opts.Progress(work.Event{Kind: work.EventObserver, Detail: "look at the handler's tests before writing the spec"})
	rec.Finish(t.Context())

	require.Equal(t, []work.EventKind{work.EventStep, work.EventCompress, work.EventCompress, work.EventObserver}, heard)
	got, err := session.Load(t.Context(), st, rec.ID())
	require.NoError(t, err)
	require.Len(t, got.Events, 2)
	require.Equal(t, session.StageExplore, got.Events[0].Stage)
	require.Equal(t, &session.Compression{TokensBefore: 9000, TokensAfter: 2500, Record: "9000 → 2500 prompt tokens; record holds 4 files"}, got.Events[0].Compression)
	require.Equal(t, "look at the handler's tests before writing the spec", got.Events[1].Observer.Text)
}
