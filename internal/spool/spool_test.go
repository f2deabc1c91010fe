package spool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func drainAll(t *testing.T, s *Spool) []string {
	t.Helper()
	var got []string
	_, err := s.Drain(context.Background(), func(rec []byte) error { got = append(got, string(rec)); return nil })
	require.NoError(t, err)
	return got
}

func TestDrainIsOldestFirstAndSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 100)
	require.NoError(t, err)
	for i := range 30 {
		require.NoError(t, s.Put(fmt.Appendf(nil, "r%02d", i)))
	}
	require.Equal(t, 30, s.Len())
	// A new process finds every record, in order.
	s2, err := Open(dir, 100)
	require.NoError(t, err)
	require.Equal(t, 30, s2.Len())
	got := drainAll(t, s2)
	require.Len(t, got, 30)
	for i, r := range got {
		require.Equal(t, fmt.Sprintf("r%02d", i), r)
	}
	require.Zero(t, s2.Len())
	require.Empty(t, drainAll(t, s2))
}

func TestAFailedHandlingKeepsTheRecordForTheNextDrain(t *testing.T) {
	s, err := Open(t.TempDir(), 10)
	require.NoError(t, err)
	for _, r := range []string{"a", "b", "c"} {
		require.NoError(t, s.Put([]byte(r)))
	}
	down := errors.New("database unavailable")
	var seen []string
	n, err := s.Drain(context.Background(), func(rec []byte) error {
		seen = append(seen, string(rec))
		if string(rec) == "b" {
			return down
		}
		return nil
	})
	require.ErrorIs(t, err, down)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"a", "b"}, seen)
	require.Equal(t, 2, s.Len())
	require.Equal(t, []string{"b", "c"}, drainAll(t, s))
}

func TestAnUnreadableRecordIsMovedAsideNotRetried(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 10)
	require.NoError(t, err)
	require.NoError(t, s.Put([]byte("garbage")))
	require.NoError(t, s.Put([]byte("good")))
	var handled []string
	n, err := s.Drain(context.Background(), func(rec []byte) error {
		if string(rec) == "garbage" {
			return fmt.Errorf("decode: %w", ErrUnreadable)
		}
		handled = append(handled, string(rec))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []string{"good"}, handled)
	bad, err := os.ReadDir(filepath.Join(dir, badDir))
	require.NoError(t, err)
	require.Len(t, bad, 1)
	b, err := os.ReadFile(filepath.Join(dir, badDir, bad[0].Name()))
	require.NoError(t, err)
	require.Equal(t, "garbage", string(b))
	require.Zero(t, s.Len())
}

func TestPutRefusesPastTheMaximum(t *testing.T) {
	s, err := Open(t.TempDir(), 5)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Go(func() { errs[i] = s.Put([]byte("x")) })
	}
	wg.Wait()
	full := 0
	for _, err := range errs {
		if err != nil {
			require.ErrorIs(t, err, ErrFull)
			full++
		}
	}
	require.Equal(t, 15, full)
	require.Equal(t, 5, s.Len())
	require.Len(t, drainAll(t, s), 5)
	require.NoError(t, s.Put([]byte("room again")))
}

func TestOpenRemovesWhatACrashLeftMidPut(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "put-123.tmp"), []byte("half"), 0o600))
	s, err := Open(dir, 10)
	require.NoError(t, err)
	require.Zero(t, s.Len())
	_, err = os.Stat(filepath.Join(dir, "put-123.tmp"))
	require.True(t, os.IsNotExist(err))
	_, err = Open(dir, 0)
	require.Error(t, err)
}
