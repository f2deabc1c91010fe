package workflow

import (
	"strings"
	"testing"
)

// FuzzParseCommand: a command is only ever a known word at the start of a
// trimmed line, outside code fences. Run with
//
//	go test ./workflow -run '^$' -fuzz FuzzParseCommand -fuzztime 30s
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/plan", "x\n/implement now", "```\n/stop\n```", "> /retry", "/SPEC", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, args, ok := ParseCommand(body)
		if !ok {
			if cmd != "" || args != "" {
				t.Fatalf("no command but %q %q", cmd, args)
			}
			return
		}
		if _, known := commands[string(cmd)]; !known {
			t.Fatalf("unknown command %q", cmd)
		}
		found := false
		for _, line := range strings.Split(body, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(strings.ToLower(line), "/"+string(cmd)) && strings.HasSuffix(line, args) {
				found = true
			}
		}
		if !found {
			t.Fatalf("command %q %q not on a line of %q", cmd, args, body)
		}
	})
}
