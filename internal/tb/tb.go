package tb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// TB is what the fakes need of a test; *testing.T and *testing.B satisfy it.
type TB interface {
	Helper()
	Cleanup(func())
	TempDir() string
	Context() context.Context
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Session is a TB for a program: temporary directories live under Dir,
// Close runs the clean-ups (last registered first) and removes Dir.
type Session struct {
	dir    string
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	cleanups []func()
	errs     []string
	n        int
}

// failure is the panic Fatalf and Skipf raise; Run turns it into an error.
type failure struct{ msg string }

// NewSession makes a session whose temporary directories are created
// under a new directory in parent ("" for the system's temporary directory).
func NewSession(parent string) (*Session, error) {
	dir, err := os.MkdirTemp(parent, "issuesmith-try-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{dir: dir, ctx: ctx, cancel: cancel}, nil
}

// Dir is the session's root directory.
func (s *Session) Dir() string { return s.dir }

// Helper does nothing: there is no test output to attribute lines in.
func (s *Session) Helper() {}

// Cleanup registers fn to run at Close.
func (s *Session) Cleanup(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cleanups = append(s.cleanups, fn)
}

// TempDir makes a new directory under Dir; a failure is fatal.
func (s *Session) TempDir() string {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	dir := fmt.Sprintf("%s/%03d", s.dir, n)
	if err := os.Mkdir(dir, 0o700); err != nil {
		s.Fatalf("temporary directory: %v", err)
	}
	return dir
}

// Context ends when Close starts, as a test's context does.
func (s *Session) Context() context.Context { return s.ctx }

// Logf does nothing: a program's user does not read the fakes' chatter.
func (s *Session) Logf(string, ...any) {}

// Errorf records a failure that does not stop the caller (a fake got a
// request it did not expect); Err reports it.
func (s *Session) Errorf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// Fatalf stops the caller: it must run inside Run, which returns the
// message as its error.
func (s *Session) Fatalf(format string, args ...any) {
	panic(failure{fmt.Sprintf(format, args...)})
}

// Skipf is Fatalf: a program cannot skip what it was asked to do.
func (s *Session) Skipf(format string, args ...any) { s.Fatalf(format, args...) }

// Run calls fn, turning a Fatalf inside it into an error; other panics
// go on.
func (s *Session) Run(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			err = errors.New(f.msg)
		}
	}()
	return fn()
}

// Err is the failures recorded by Errorf so far, nil when none.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(s.errs, "\n"))
}

// Close runs the clean-ups, last registered first, and removes Dir.
func (s *Session) Close() error {
	s.cancel()
	s.mu.Lock()
	fns := slices.Clone(s.cleanups)
	s.cleanups = nil
	s.mu.Unlock()
	for _, fn := range slices.Backward(fns) {
		fn()
	}
	return os.RemoveAll(s.dir)
}

var _ TB = (*Session)(nil)
