package giteatest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// description is Gitea 1.26's swagger 2.0 description cut to the
// operations served here; testdata/prune regenerates it (go generate).
//
//go:generate go run ./testdata/prune /root/go/pkg/mod/code.gitea.io/gitea@v1.26.0 testdata/gitea-1.26.0.pruned.json
//go:embed testdata/gitea-1.26.0.pruned.json
var description []byte

// loadDescription converts the description to OpenAPI 3 once per test
// binary (kin-openapi's openapi2conv); the document is only read afterwards.
var loadDescription = sync.OnceValues(func() (*openapi3.T, error) {
	var v2 openapi2.T
	if err := json.Unmarshal(description, &v2); err != nil {
		return nil, fmt.Errorf("parse gitea's swagger description: %w", err)
	}
	doc, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return nil, fmt.Errorf("convert gitea's swagger description: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("gitea's description is invalid: %w", err)
	}
	return doc, nil
})

// newRouter routes requests under api ("/api/v1", on any host: a test may
// put the fake behind a proxy with a sub-path).
func newRouter(api string) (routers.Router, error) {
	doc, err := loadDescription()
	if err != nil {
		return nil, err
	}
	d := *doc // shallow copy: only Servers differs per fake
	d.Servers = openapi3.Servers{{URL: api}}
	return gorillamux.NewRouter(&d)
}

// validate checks req (whose body has been read into body) against its
// operation: path and query parameters, content type and body schema, and
// body properties the operation does not define (Gitea ignores them; in
// our code they are a bug).
func validate(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, body []byte) error {
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return err
	}
	return unknownProperties(route.Operation, body)
}

func unknownProperties(op *openapi3.Operation, body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || len(mt.Schema.Value.Properties) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil // not an object: the schema check already judged it
	}
	var unknown []string
	for k := range obj {
		if _, ok := mt.Schema.Value.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("request body has properties the operation does not define: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// validateResponse checks the fake's own JSON answer against the
// operation's documented response.
func validateResponse(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, status int, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status, Header: http.Header{"Content-Type": {"application/json;charset=utf-8"}},
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, in)
}
