package ghtest

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// graphQLSDL is GitHub's GraphQL schema cut to what the fake serves
// (testdata/prune-graphql.mjs makes it from npm @octokit/graphql-schema).
//
//go:embed testdata/github.pruned.graphql
var graphQLSDL string

var graphQLSchema = sync.OnceValues(func() (*ast.Schema, error) {
	return gqlparser.LoadSchema(&ast.Source{Name: "github.pruned.graphql", Input: graphQLSDL})
})

// serveGraphQL answers POST /graphql: the query must validate against
// GitHub's schema, with an installation token. It serves the mutation
// markPullRequestReadyForReview.
func (s *Server) serveGraphQL(w http.ResponseWriter, r *http.Request, body []byte) int {
	answer := func(code int, v any) int {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
		return code
	}
	gqlErr := func(msg string) int {
		s.failf("POST /graphql would be rejected by GitHub: %s", msg)
		return answer(http.StatusOK, obj{"errors": []obj{{"message": msg}}})
	}
	if r.Method != http.MethodPost {
		return answer(http.StatusNotFound, obj{"message": "Not Found"})
	}
	inst, ok := s.tokenInstallation(r.Header.Get("Authorization"))
	if !ok {
		s.failf("POST /graphql without a valid installation token")
		return answer(http.StatusUnauthorized, obj{"message": "Bad credentials"})
	}
	var in struct {
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
		OperationName string         `json:"operationName"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Query == "" {
		return gqlErr("the body is not a GraphQL request")
	}
	schema, err := graphQLSchema()
	if err != nil {
		return gqlErr("the pruned schema does not load: " + err.Error())
	}
	doc, errs := gqlparser.LoadQueryWithRules(schema, in.Query, nil) // nil: the default rules
	if errs != nil {
		return gqlErr(errs.Error())
	}
	op := doc.Operations.ForName(in.OperationName)
	if op == nil {
		return gqlErr("no operation " + in.OperationName)
	}
	vars, verr := validator.VariableValues(schema, op, in.Variables)
	if verr != nil {
		return gqlErr(verr.Error())
	}
	data := obj{}
	for _, sel := range op.SelectionSet {
		f, _ := sel.(*ast.Field)
		if f == nil || f.Name != "markPullRequestReadyForReview" {
			return gqlErr("the fake serves only markPullRequestReadyForReview")
		}
		input, _ := f.ArgumentMap(vars)["input"].(map[string]any)
		id, _ := input["pullRequestId"].(string)
		pr, errMsg := s.markReady(inst, id)
		if errMsg != "" {
			return answer(http.StatusOK, obj{"data": obj{f.Alias: nil}, "errors": []obj{{"message": errMsg, "type": "NOT_FOUND"}}})
		}
		data[f.Alias] = selectFields(f.SelectionSet, obj{"clientMutationId": input["clientMutationId"], "pullRequest": pr})
	}
	return answer(http.StatusOK, obj{"data": data})
}

// markReady marks the pull request with node id ready for review.
func (s *Server) markReady(inst int64, id string) (obj, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rp := range s.st.repos {
		for _, is := range rp.issues {
			if is.pr == nil || prNodeID(is) != id {
				continue
			}
			if rp.Installation != inst {
				return nil, "Resource not accessible by integration"
			}
			is.pr.draft = false
			return obj{"id": id, "number": is.Number, "isDraft": false}, ""
		}
	}
	return nil, "Could not resolve to a node with the global id of '" + id + "'"
}

// selectFields keeps what a selection set asks of v, by alias.
func selectFields(set ast.SelectionSet, v any) any {
	m, ok := v.(obj)
	if !ok || len(set) == 0 {
		return v
	}
	out := obj{}
	for _, sel := range set {
		if f, ok := sel.(*ast.Field); ok {
			out[f.Alias] = selectFields(f.SelectionSet, m[f.Name])
		}
	}
	return out
}

// tokenInstallation returns the installation of an unexpired token in an
// Authorization header.
func (s *Server) tokenInstallation(auth string) (int64, bool) {
	scheme, cred, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "bearer") {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, ok := s.st.tokens[cred]
	if !ok || !s.now().Before(tok.expires) {
		return 0, false
	}
	return tok.installation, true
}
