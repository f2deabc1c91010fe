package summaries

/*
#include <stddef.h>
// Defined by the tree-sitter runtime that go-tree-sitter compiles in.
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t),
	void *(*)(void *, size_t), void (*)(void *));
static void issuesmith_ts_default_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
*/
import "C"

// useCAllocator points tree-sitter's allocator back at libc malloc. The Go
// binding routes every allocation of the parser through a C→Go→C callback
// (so that Go code may replace it), which made parsing some ten times
// slower. Both routes end in the same libc heap, so memory allocated before
// the switch is freed correctly after it. It is process-wide and called once,
// before the first parse.
func useCAllocator() { C.issuesmith_ts_default_allocator() }
