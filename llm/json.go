package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// ChatJSON asks m for one JSON object and decodes it into v. A reply that
// is not valid JSON (or does not fit v) goes back to the model as an error
// message and is asked again, up to attempts times in all (0: 3); then the
// error wraps ErrInvalidJSON and quotes the start of the last reply. Code
// fences around the object are tolerated. The returned Response is the
// last one; its Usage covers every attempt.
func ChatJSON(ctx context.Context, m Model, req Request, v any, attempts int) (*Response, error) {
	if attempts <= 0 {
		attempts = 3
	}
	req.JSON = true
	msgs := append([]Message(nil), req.Messages...)
	if !mentionsJSON(msgs) {
		// OpenAI refuses json_object mode unless a message says "JSON";
		// servers without the mode need the instruction anyway.
		msgs = append(msgs, Message{Role: User, Content: "Reply with one JSON object only."})
	}
	var total Usage
	var cost float64
	for i := 0; ; i++ {
		req.Messages = msgs
		resp, err := m.Chat(ctx, req)
		if err != nil {
			return nil, err
		}
		total, cost = total.Add(resp.Usage), cost+resp.Cost
		text := stripFence(resp.Message.Content)
		err = json.Unmarshal([]byte(text), v)
		if err == nil {
			resp.Usage, resp.Cost = total, cost
			return resp, nil
		}
		if i+1 >= attempts {
			return resp, fmt.Errorf("%w after %d attempts: %v; reply began %q", ErrInvalidJSON, attempts, err, truncate(text, 120))
		}
		why := fmt.Sprintf("error: your reply is not valid JSON for the requested shape: %v. "+
			"Reply with exactly one JSON object and nothing else.", err)
		if resp.FinishReason == FinishLength {
			// Asking for the same object again invites the same cut.
			why = "error: your reply was cut off at the output limit before the JSON object was complete. " +
				"Reply with exactly one JSON object again, shorter: fewer and shorter strings, no commentary."
		}
		msgs = append(msgs, Message{Role: Assistant, Content: resp.Message.Content}, Message{Role: User, Content: why})
	}
}

// stripFence removes a ``` or ```json fence around s.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[nl+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}

func mentionsJSON(msgs []Message) bool {
	for _, m := range msgs {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}
