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

// sampleFiles is the repository's first commit.
var sampleFiles = map[string]string{
	"go.mod": "module example.com/units\n\ngo 1.22\n",
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
