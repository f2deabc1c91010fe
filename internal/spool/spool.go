package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrFull is Put's error when the spool already holds its maximum.
var ErrFull = errors.New("spool is full")

// ErrUnreadable is what a Drain function wraps to say a record can never
// be handled: it is moved aside (to the "bad" subdirectory), not retried.
var ErrUnreadable = errors.New("unreadable record")

const (
	suffix = ".rec"
	tmpExt = ".tmp"
	badDir = "bad"
)

// Spool is a directory of records. It is safe for concurrent use within
// one process; two processes must not share a directory.
type Spool struct {
	dir  string
	max  int
	n    atomic.Int64
	seq  atomic.Uint64
	mu   sync.Mutex // serialises Drain
	lock sync.Mutex // guards the count check of Put
}

// Open opens (creating it, mode 0700) the spool in dir, holding at most
// max records (max > 0). Temporary files a crash left mid-Put are removed:
// those deliveries were never answered.
func Open(dir string, max int) (*Spool, error) {
	if max <= 0 {
		return nil, fmt.Errorf("spool %s: maximum must be positive, got %d", dir, max)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	s := &Spool{dir: dir, max: max}
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), tmpExt) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	s.n.Store(int64(len(names)))
	return s, nil
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Len is how many records wait.
func (s *Spool) Len() int { return int(s.n.Load()) }

// Put stores rec durably, after every record already stored.
func (s *Spool) Put(rec []byte) error {
	s.lock.Lock()
	if s.n.Load() >= int64(s.max) {
		s.lock.Unlock()
		return fmt.Errorf("%w (%d records wait in %s)", ErrFull, s.max, s.dir)
	}
	s.n.Add(1)
	s.lock.Unlock()
	if err := s.write(rec); err != nil {
		s.n.Add(-1)
		return err
	}
	return nil
}

// write puts rec in place under a name that sorts after every earlier one:
// the time in nanoseconds, then a sequence number for equal times.
func (s *Spool) write(rec []byte) error {
	name := fmt.Sprintf("%020d-%012d%s", time.Now().UnixNano(), s.seq.Add(1), suffix)
	tmp, err := os.CreateTemp(s.dir, "put-*"+tmpExt)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	_, err = tmp.Write(rec)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.dir, name))
	}
	if err == nil {
		err = syncDir(s.dir)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Drain hands each record to fn, oldest first, and removes it once fn
// returned nil. It stops at fn's first error other than ErrUnreadable
// (returned, with the count handled so far) or when ctx ends. Records put
// during a drain are handed in a later one.
func (s *Spool) Drain(ctx context.Context, fn func(rec []byte) error) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names, err := s.names()
	if err != nil {
		return 0, err
	}
	done := 0
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		path := filepath.Join(s.dir, name)
		rec, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // not ours to count: the spool is shared against its contract
		}
		if err == nil {
			err = fn(rec)
		}
		switch {
		case errors.Is(err, ErrUnreadable):
			if merr := s.moveAside(name); merr != nil {
				return done, merr
			}
		case err != nil:
			return done, err
		default:
			if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return done, fmt.Errorf("spool: %w", rerr)
			}
		}
		s.n.Add(-1)
		done++
	}
	if done > 0 {
		_ = syncDir(s.dir)
	}
	return done, nil
}

// moveAside keeps an unreadable record under bad/ for a person.
func (s *Spool) moveAside(name string) error {
	bad := filepath.Join(s.dir, badDir)
	if err := os.MkdirAll(bad, 0o700); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := os.Rename(filepath.Join(s.dir, name), filepath.Join(bad, name)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// names lists the records in order.
func (s *Spool) names() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
