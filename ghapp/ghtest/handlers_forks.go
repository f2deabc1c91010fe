package ghtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Forks (issue 13 item 5, push: fork): accounts the App may be installed
// on, the installation look-ups by account and POST /repos/{o}/{r}/forks,
// whose forks are repositories of their own (owned by the account's
// installation) that remember their parent.

// Account is a user or organization known to the fake, where forks are made.
type Account struct {
	Login string
	// Org makes the account an organization (forks into it name it as
	// "organization"; GET /orgs/{org}/installation finds it).
	Org bool
	// Installation is the App's installation on the account; 0 means the
	// App is not installed there (both installation look-ups answer 404).
	Installation int64
	// CloneURL gives the clone_url of a repository made in the account
	// (a fork) from its name: the test's git server.
	CloneURL func(name string) string
	// ForkDelay is how many GET /repos/{owner}/{repo} of a new fork answer
	// 404 before it appears: GitHub makes forks asynchronously.
	ForkDelay int
}

// forkState is the fake's accounts and forks (guarded by Server.mu).
type forkState struct {
	accounts map[string]*Account // by lower-case login
	parent   map[string]string   // fork full name → parent full name
	hidden   map[string]int      // fork full name → 404s left
}

func init() {
	handlers["POST /repos/{owner}/{repo}/forks"] = createFork
	handlers["GET /orgs/{org}/installation"] = orgInstallation
	handlers["GET /users/{username}/installation"] = userInstallation
	handlers["GET /repos/{owner}/{repo}"] = getRepoOrNewFork // getRepo, hiding a fork still being made
	appOps["GET /orgs/{org}/installation"] = true
	appOps["GET /users/{username}/installation"] = true
	publicOps["POST /repos/{owner}/{repo}/forks"] = true
}

// publicOps may be called by any installation on any repository: the
// fake's repositories are public, and forking one needs only read access.
var publicOps = map[string]bool{}

// AddAccount adds (or replaces) a user or organization.
func (s *Server) AddAccount(a Account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.st.forkState()
	fs.accounts[strings.ToLower(a.Login)] = &a
}

// Parent returns the full name of the repository owner/name is a fork of,
// "" when it is not a fork.
func (s *Server) Parent(owner, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.forkState().parent[owner+"/"+name]
}

func (st *state) forkState() *forkState {
	if st.forks.accounts == nil {
		st.forks = forkState{accounts: map[string]*Account{}, parent: map[string]string{}, hidden: map[string]int{}}
	}
	return &st.forks
}

// installed reports whether installation id belongs to a known account.
func (st *state) installed(id int64) bool {
	for _, a := range st.forkState().accounts {
		if a.Installation == id && id != 0 {
			return true
		}
	}
	return false
}

// ownsAccount reports whether installation id is installed on account
// login: asking it for a repository the account lacks is a plain 404.
func (st *state) ownsAccount(login string, id int64) bool {
	a := st.forkState().accounts[strings.ToLower(login)]
	return a != nil && a.Installation == id
}

func createFork(c *call) response {
	up := c.repoOf()
	var in struct {
		Organization      string `json:"organization"`
		Name              string `json:"name"`
		DefaultBranchOnly bool   `json:"default_branch_only"`
	}
	if len(c.body) > 0 && !c.decode(&in) {
		return errorResp(http.StatusBadRequest, "Problems parsing JSON")
	}
	fs := c.s.st.forkState()
	var acct *Account
	if in.Organization != "" {
		acct = fs.accounts[strings.ToLower(in.Organization)]
		if acct == nil || !acct.Org || acct.Installation != c.installation {
			c.fail("installation %d may not create repositories in organization %q", c.installation, in.Organization)
			return errorResp(http.StatusForbidden, "Resource not accessible by integration")
		}
	} else {
		for _, a := range fs.accounts {
			if !a.Org && a.Installation == c.installation {
				acct = a
			}
		}
		if acct == nil {
			c.fail("installation %d is on no user account: an organization's fork needs \"organization\"", c.installation)
			return errorResp(http.StatusForbidden, "Resource not accessible by integration")
		}
	}
	name := in.Name
	if name == "" {
		name = up.Name
	}
	key := acct.Login + "/" + name
	if rp := c.s.st.repos[key]; rp != nil {
		if fs.parent[key] != up.Owner+"/"+up.Name {
			c.fail("%s exists and is not a fork of %s/%s", key, up.Owner, up.Name)
			return errorResp(http.StatusUnprocessableEntity, "Validation Failed")
		}
		return ok(http.StatusAccepted, c.s.repoObj(rp)) // GitHub answers with the existing fork
	}
	url := ""
	if acct.CloneURL != nil {
		url = acct.CloneURL(name)
	}
	rp := &repo{Repo: Repo{Owner: acct.Login, Name: name, DefaultBranch: up.DefaultBranch, CloneURL: url,
		Installation: acct.Installation}, id: c.s.st.id(), issues: map[int]*issue{},
		perms: map[string]string{}, files: map[string]map[string][]byte{}}
	c.s.st.repos[key] = rp
	fs.parent[key] = up.Owner + "/" + up.Name
	fs.hidden[key] = acct.ForkDelay
	return ok(http.StatusAccepted, c.s.repoObj(rp))
}

func getRepoOrNewFork(c *call) response {
	key := c.param("owner") + "/" + c.param("repo")
	fs := c.s.st.forkState()
	if fs.hidden[key] > 0 {
		fs.hidden[key]--
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return getRepo(c)
}

// forkFields adds a fork's "fork", "parent" and "source" to its object.
func (s *Server) forkFields(o obj, rp *repo) {
	parent := s.st.forkState().parent[rp.Owner+"/"+rp.Name]
	o["fork"] = parent != ""
	if up := s.st.repos[parent]; up != nil {
		p := s.repoObj(up)
		o["parent"], o["source"] = p, p
	}
}

func orgInstallation(c *call) response {
	a := c.s.st.forkState().accounts[strings.ToLower(c.param("org"))]
	if a == nil || !a.Org || a.Installation == 0 {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, installationObj(a))
}

func userInstallation(c *call) response {
	a := c.s.st.forkState().accounts[strings.ToLower(c.param("username"))]
	if a == nil || a.Installation == 0 {
		return errorResp(http.StatusNotFound, "Not Found")
	}
	return ok(http.StatusOK, installationObj(a))
}

func installationObj(a *Account) obj {
	typ := "User"
	if a.Org {
		typ = "Organization"
	}
	acct := userObj(a.Login)
	acct["type"] = typ
	now := ts(time.Now())
	return obj{"id": a.Installation, "account": acct, "target_type": typ, "target_id": idOf(a.Login),
		"repository_selection": "all", "created_at": now, "updated_at": now,
		"permissions": obj{"contents": "write", "administration": "write", "metadata": "read"},
		"events":      []string{}, "html_url": "https://github.com/settings/installations/" + strconv.FormatInt(a.Installation, 10)}
}

// splitHead reads a pull request head, "branch" or "owner:branch", as
// owner and branch (the repository's owner when none is named). An empty
// head stays empty.
func splitHead(rp *repo, head string) (owner, branch string) {
	if o, b, found := strings.Cut(head, ":"); found {
		return o, b
	}
	if head == "" {
		return "", ""
	}
	return rp.Owner, head
}

// hasFork reports whether account owner has a fork of rp.
func (st *state) hasFork(owner string, rp *repo) bool {
	for fork, parent := range st.forkState().parent {
		o, _, _ := strings.Cut(fork, "/")
		if strings.EqualFold(o, owner) && parent == rp.Owner+"/"+rp.Name {
			return true
		}
	}
	return false
}

// headRepo is the repository a pull request's head branch lives in: rp,
// or the head owner's fork of it.
func (s *Server) headRepo(rp *repo, pr *pull) *repo {
	if pr.headOwner == "" {
		return rp
	}
	for fork, parent := range s.st.forkState().parent {
		o, _, _ := strings.Cut(fork, "/")
		if strings.EqualFold(o, pr.headOwner) && parent == rp.Owner+"/"+rp.Name && s.st.repos[fork] != nil {
			return s.st.repos[fork]
		}
	}
	return rp
}
