package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRepetitive(t *testing.T) {
	t.Parallel()
	loop := strings.Repeat("I will now read main.go to see the greeting. ", 100)
	assert.True(t, Repetitive("Let me think.\n"+loop), "a sentence over and over")
	assert.True(t, Repetitive(strings.Repeat("a", 4000)), "one character")
	assert.True(t, Repetitive(strings.Repeat("\tfmt.Println(\"x\")\n", 250)), "one line")
	assert.False(t, Repetitive(loop[:2000]), "too short to call")
	var b strings.Builder
	for i := range 400 {
		b.WriteString("\tcase " + strings.Repeat("x", i%7) + ":\n\t\treturn " + string(rune('a'+i%26)) + "\n")
	}
	assert.False(t, Repetitive(b.String()), "similar lines are no loop")
	assert.False(t, Repetitive(loop+"\nDone: the file is read and the goodbye goes after line 6 of main.go, where the greeting is printed."),
		"a loop the model left")
}
