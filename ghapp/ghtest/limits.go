package ghtest

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxBody is GitHub's cap on the body of an issue, comment, pull request
// or review comment, in characters: a longer one is answered 422.
const MaxBody = 65536

// checkBodyLimit returns the error GitHub gives for a request whose JSON
// "body" is longer than MaxBody characters, or nil.
func checkBodyLimit(req []byte) error {
	var in struct {
		Body *string `json:"body"`
	}
	if json.Unmarshal(req, &in) != nil || in.Body == nil {
		return nil
	}
	if n := utf8.RuneCountInString(*in.Body); n > MaxBody {
		return fmt.Errorf("body is too long (maximum is %d characters; this one has %d)", MaxBody, n)
	}
	return nil
}
