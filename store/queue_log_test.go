package store

import (
	"bytes"
	"log/slog"
	"testing"
)

func TestQuietRiverRewordsPollOnly(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var buf bytes.Buffer
		l := quietRiver(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))).With("c", "river")
		l.Info(riverPollOnly)
		l.Warn("other")
		out := buf.String()
		if bytes.Contains(buf.Bytes(), []byte("poll only mode")) {
			t.Fatalf("River's wording passed through:\n%s", out)
		}
		if !bytes.Contains(buf.Bytes(), []byte("msg=other")) || !bytes.Contains(buf.Bytes(), []byte("c=river")) {
			t.Fatalf("other records must pass unchanged:\n%s", out)
		}
		if got := bytes.Contains(buf.Bytes(), []byte("LISTEN/NOTIFY")); got != (level == slog.LevelDebug) {
			t.Fatalf("level %v: reworded line shown = %v:\n%s", level, got, out)
		}
	}
}
