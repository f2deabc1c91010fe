package llm

// A model stuck in a repetition loop writes the same sentence or line until
// the output limit (or, without one, until the context window is full: at a
// local server's speed that is many minutes). Repetitive recognises it from
// the reply's tail; the stream reader cuts such a reply as soon as it shows
// (FinishRepetition) and the agent loop ends the run with StopRepetition.

const (
	// repeatWindow is how much of the tail is looked at.
	repeatWindow = 8192
	// repeatSpan is the least periodic text that counts as a loop: well
	// past any table or ruler a real answer holds.
	repeatSpan = 3000
	// repeatTimes is the least number of repeats of the unit.
	repeatTimes = 12
	// repeatUnit is the longest repeated unit looked for.
	repeatUnit = 600
	// repeatCheckEvery is how much a streamed reply grows between checks.
	repeatCheckEvery = 2048
)

// Repetitive reports whether text ends in the same unit (up to 600 bytes)
// repeated at least 12 times over at least 3,000 bytes.
func Repetitive(text string) bool {
	if len(text) < repeatSpan {
		return false
	}
	t := text[max(0, len(text)-repeatWindow):]
	n := len(t)
	for p := 1; p <= repeatUnit && p*repeatTimes <= n; p++ {
		i := n - 1
		for i-p >= 0 && t[i] == t[i-p] {
			i--
		}
		span := n - 1 - i + p // the periodic tail, its first unit included
		if span >= repeatSpan && span >= p*repeatTimes {
			return true
		}
	}
	return false
}
