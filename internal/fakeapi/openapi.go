package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Router routes requests to server (a URL, or a path such as "/api/v1"
// on any host) by doc, which it does not change.
func Router(doc *openapi3.T, server string) (routers.Router, error) {
	d := *doc // shallow copy: only Servers differs per fake
	d.Servers = openapi3.Servers{{URL: server}}
	return gorillamux.NewRouter(&d)
}

// CheckRequest checks req (whose body has been read into body) against its
// operation: path and query parameters, headers, content type and body
// schema, and body properties the operation does not define.
func CheckRequest(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, body []byte) error {
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
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil // not an object: the schema check already judged it
	}
	known := map[string]bool{}
	collectProperties(mt.Schema.Value, known)
	if len(known) == 0 {
		return nil
	}
	var unknown []string
	for k := range obj {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("request body has properties the operation does not define: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// collectProperties gathers property names of s and its oneOf/anyOf/allOf
// branches.
func collectProperties(s *openapi3.Schema, into map[string]bool) {
	for name := range s.Properties {
		into[name] = true
	}
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
		for _, ref := range group {
			if ref.Value != nil {
				collectProperties(ref.Value, into)
			}
		}
	}
}

// CheckResponse checks a fake's own answer against the operation's
// documented response, so what the code under test decodes has the
// forge's shape.
func CheckResponse(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, status int, header http.Header, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status, Header: header,
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, in)
}
