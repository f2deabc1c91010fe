// Package tb is the part of testing.TB that the loopback fakes (ghapp/ghtest,
// llm/llmtest, repo/gittest) use, so they run outside a test too: a test
// passes its *testing.T, and `bot try` (package trydemo) passes a Session,
// which keeps temporary directories under one root, runs the clean-ups when
// closed, records Errorf and turns Fatalf into an error returned by Run.
//
// It must never grow into a test framework: only what the fakes call.
package tb
