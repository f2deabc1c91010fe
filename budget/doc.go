// Package budget keeps spending from running away: it is the llm.Gate of
// `bot serve` (Gate.Admit), asked before every model call whether the
// call's worst case fits the limits of its stage, its run, its repository
// and its installation per UTC day and calendar month, and charged what the
// call used, in the store's usage ledger, as each call ends.
//
// The scope of a call travels in its context: the workflow puts a Meter
// (one stage job's spending state: its Scope, what each role spent in the
// stage, the limit that stopped it, notes for the progress comment) there
// with WithMeter before it runs an agent. A call without a Meter is refused:
// limits fail closed. A call is reserved at its worst case before it is
// made and charged after, so concurrent calls see each other and a crash in
// between leaves the worst case counted; a reservation that would pass a
// limit is dropped and the call refused (an *Exceeded wrapping
// llm.ErrSpendLimit), so no limit is passed by more than one call. A
// process's admissions reserve and sum one at a time, so concurrent calls
// of one process never all refuse each other; replicas only fail closed
// against each other. Check
// refuses a stage before any model call when a scope is already spent.
//
// It must never call a model, GitHub or git; the workflow decides what a
// stop means for the run, and the message it posts is Exceeded.Error.
package budget
