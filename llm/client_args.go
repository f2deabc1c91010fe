package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Tool-call arguments sent as a JSON object instead of a string holding one
// (TGI, some llama-server builds): go-openai's types take only a string and
// the whole reply would fail to decode ("cannot unmarshal object into Go
// struct field FunctionCall...arguments of type string"). The transport
// rewrites such arguments into their string form before go-openai reads the
// reply, in plain JSON replies and in every event of a stream.

// objectArgs reports whether raw may hold arguments given as an object
// (cheap test before decoding).
func objectArgs(raw []byte) bool {
	i := bytes.Index(raw, []byte(`"arguments"`))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(raw[i+len(`"arguments"`):], " \t\r\n")
	rest = bytes.TrimLeft(bytes.TrimPrefix(rest, []byte(":")), " \t\r\n")
	return len(rest) > 0 && rest[0] != '"' || bytes.Count(raw, []byte(`"arguments"`)) > 1
}

// stringifyArgs returns raw with every choices[].message/delta
// .tool_calls[].function.arguments that is not a string turned into one;
// raw unchanged when there is none or it is not JSON.
func stringifyArgs(raw []byte) []byte {
	if !objectArgs(raw) {
		return raw
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	choices, _ := v["choices"].([]any)
	changed := false
	for _, c := range choices {
		ch, _ := c.(map[string]any)
		for _, key := range []string{"message", "delta"} {
			m, _ := ch[key].(map[string]any)
			calls, _ := m["tool_calls"].([]any)
			for _, tc := range calls {
				fn, _ := tc.(map[string]any)["function"].(map[string]any)
				args, ok := fn["arguments"]
				if !ok || args == nil {
					continue
				}
				if _, isString := args.(string); isString {
					continue
				}
				b, err := json.Marshal(args)
				if err != nil {
					continue
				}
				fn["arguments"], changed = string(b), true
			}
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// fixArgs wraps a successful reply's body so that arguments given as
// objects reach go-openai as strings.
func fixArgs(resp *http.Response) {
	if resp == nil || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		pr, pw := io.Pipe()
		body := resp.Body
		go func() {
			sc := bufio.NewScanner(body)
			sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
			var err error
			for sc.Scan() && err == nil {
				line := sc.Bytes()
				if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
					line = append([]byte("data: "), stringifyArgs(bytes.TrimSpace(data))...)
				}
				_, err = pw.Write(append(line, '\n'))
			}
			if err == nil {
				err = sc.Err()
			}
			pw.CloseWithError(err)
		}()
		resp.Body = struct {
			io.Reader
			io.Closer
		}{pr, closeBoth{pr, body}}
	case strings.HasPrefix(ct, "application/json"):
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), errReader{err}))
			return
		}
		raw = stringifyArgs(raw)
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
	}
}

type closeBoth struct{ a, b io.Closer }

func (c closeBoth) Close() error { c.a.Close(); return c.b.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
