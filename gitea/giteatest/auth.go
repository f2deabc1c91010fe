package giteatest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// scopeCategories are the token scopes a route needs, as Gitea 1.26's
// routers/api/v1/api.go groups them: none for /version; /user/repos sits in
// the /user group (user scope) and asks the repository scope itself, and
// Gitea checks both, the group's first.
func scopeCategories(op string) []string {
	path := op[strings.IndexByte(op, ' ')+1:]
	switch {
	case path == "/version":
		return nil
	case path == "/user":
		return []string{"user"}
	case path == "/user/repos":
		return []string{"user", "repository"}
	case strings.HasPrefix(path, "/repos/{owner}/{repo}/issues"):
		return []string{"issue"}
	default:
		return []string{"repository"}
	}
}

// authorize checks the token (Authorization: token …) and its scope, and
// resolves the route's repository, answering as Gitea does when one fails.
func (s *Server) authorize(c *call) (response, bool) {
	cats := scopeCategories(c.op)
	auth := c.r.Header.Get("Authorization")
	if auth != "" {
		value, found := strings.CutPrefix(auth, "token ")
		tok := s.st.tokens[strings.TrimSpace(value)]
		if !found || tok == nil {
			return errorResp(http.StatusUnauthorized, "invalid username, password or token"), false
		}
		c.user = tok.user
		level := "read"
		if c.r.Method != http.MethodGet {
			level = "write"
		}
		for _, cat := range cats {
			if !hasScope(tok.scopes, level, cat) {
				msg := fmt.Sprintf("token does not have at least one of required scope(s), required=[%s:%s], token scope=%s",
					level, cat, strings.Join(tok.scopes, ","))
				return errorResp(http.StatusForbidden, msg), false
			}
		}
	}
	if c.user == "" && (slices.Contains(cats, "user") || c.r.Method != http.MethodGet) {
		return errorResp(http.StatusUnauthorized, "token is required"), false
	}
	if !strings.Contains(c.op, "/repos/{owner}/{repo}") {
		return response{}, true
	}
	c.repo = s.st.repo(c.param("owner"), c.param("repo"))
	if c.repo == nil || c.repo.permission(&s.st, c.user) == "none" {
		return errorResp(http.StatusNotFound, ""), false
	}
	return response{}, true
}

// hasScope is Gitea's rule: "all" is every scope, write implies read.
func hasScope(scopes []string, level, category string) bool {
	return slices.Contains(scopes, "all") || slices.Contains(scopes, "write:"+category) ||
		(level == "read" && slices.Contains(scopes, "read:"+category))
}

// requireWrite answers 403 unless the caller may write to the repository.
func (c *call) requireWrite() (response, bool) {
	if atLeast(c.repo.permission(&c.s.st, c.user), "write") {
		return response{}, true
	}
	return errorResp(http.StatusForbidden, "user should have a permission to write to a repo"), false
}

// requireAdmin answers 403 unless the caller is a repository admin.
func (c *call) requireAdmin() (response, bool) {
	if atLeast(c.repo.permission(&c.s.st, c.user), "admin") {
		return response{}, true
	}
	return errorResp(http.StatusForbidden, "user should be an owner or a collaborator with admin write of a repository"), false
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoiErr(s string) (int, error) { return strconv.Atoi(s) }
