package trydemo

// The sample: a small Go module on a fake GitHub, and the issue a person
// files against it. script.yaml is the model's side of the conversation,
// written for exactly these files.
const (
	owner   = "octo-org"
	name    = "units"
	person  = "octocat" // files the issue, labels it, approves the plan
	trigger = "issuesmith"

	issueTitle = "Convert Fahrenheit back to Celsius"
	issueBody  = "`units` converts Celsius to Fahrenheit but not back. Please add `FahrenheitToCelsius`, " +
		"with a test, so that a temperature converted there and back is the same temperature."
)

// repoConfigPath is the repository's issuesmith settings: the draft pull
// request is marked ready for review once CI passes.
const repoConfigPath = ".github/issuesmith.yml"

// ciFailure is the log of the repository's CI job on the bot's first
// commit: `go test` as GitHub Actions prints it. TestRoundTrip, as the
// scripted coder wrote it, compares floats exactly; 15.3 °C comes back as
// 15.300000000000004 (a test runs the real go test to check this log).
const ciFailure = `2026-11-25T09:30:01.1000000Z ##[group]Run go test ./...
2026-11-25T09:30:01.1000000Z go test ./...
2026-11-25T09:30:04.2000000Z --- FAIL: TestRoundTrip (0.00s)
2026-11-25T09:30:04.2000000Z     temp_test.go:24: 15.3 °C there and back = 15.300000000000004
2026-11-25T09:30:04.2000000Z FAIL
2026-11-25T09:30:04.2000000Z FAIL	example.com/units	0.003s
2026-11-25T09:30:04.2000000Z FAIL
2026-11-25T09:30:04.3000000Z ##[error]Process completed with exit code 1.
2026-11-25T09:30:04.3000000Z ##[endgroup]
`

// sampleFiles is the repository's first commit.
var sampleFiles = map[string]string{
	repoConfigPath: "version: 1\nci:\n  fix_rounds: 2\n  ready_when_green: true\n",
	"go.mod":       "module example.com/units\n\ngo 1.22\n",
	"README.md": "# units\n\nConversions between units of measure.\n\n" +
		"```go\nf := units.CelsiusToFahrenheit(100) // 212\n```\n",
	"temp.go": `// Package units converts between units of measure.
package units

// CelsiusToFahrenheit converts a temperature in degrees Celsius to degrees
// Fahrenheit.
func CelsiusToFahrenheit(c float64) float64 {
	return c*9/5 + 32
}
`,
	"temp_test.go": `package units

import "testing"

func TestCelsiusToFahrenheit(t *testing.T) {
	for c, want := range map[float64]float64{-40: -40, 0: 32, 100: 212} {
		if got := CelsiusToFahrenheit(c); got != want {
			t.Errorf("CelsiusToFahrenheit(%v) = %v, want %v", c, got, want)
		}
	}
}
`,
}
