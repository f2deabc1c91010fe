package giteaserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// API calls Gitea's API v1 as the owner of token (setup the bot itself
// never does: repositories, labels, issues, reviews, statuses as a person
// or a CI would make them) and decodes the answer into out (may be nil).
// A status of 300 or more fails the test.
func (s *Server) API(token, method, path string, in, out any) {
	s.t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			s.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(Ctx(s.t), method, s.URL+"api/v1"+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("gitea %s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("gitea %s %s: %v in %s", method, path, err, raw)
		}
	}
}

// Repo makes owner's repository name (the token's user's) on branch main
// with files, in one commit.
func (s *Server) Repo(token, owner, name string, files map[string]string) {
	s.t.Helper()
	s.API(token, "POST", "/user/repos", map[string]any{"name": name, "default_branch": "main", "auto_init": false}, nil)
	var ops []map[string]any
	for path, content := range files {
		ops = append(ops, map[string]any{"operation": "create", "path": path,
			"content": base64.StdEncoding.EncodeToString([]byte(content))})
	}
	s.API(token, "POST", fmt.Sprintf("/repos/%s/%s/contents", owner, name),
		map[string]any{"branch": "main", "new_branch": "main", "message": "Seed", "files": ops}, nil)
}

// Label makes a label on owner/name and returns its id.
func (s *Server) Label(token, owner, name, label string) int64 {
	s.t.Helper()
	var out struct {
		ID int64 `json:"id"`
	}
	s.API(token, "POST", fmt.Sprintf("/repos/%s/%s/labels", owner, name), map[string]any{"name": label, "color": "#0e8a16"}, &out)
	return out.ID
}

// Issue opens an issue on owner/name and returns its number.
func (s *Server) Issue(token, owner, name, title, body string) int {
	s.t.Helper()
	var out struct {
		Number int `json:"number"`
	}
	s.API(token, "POST", fmt.Sprintf("/repos/%s/%s/issues", owner, name), map[string]any{"title": title, "body": body}, &out)
	return out.Number
}
