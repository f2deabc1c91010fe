package ghtest

import (
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/issuesmith/issuesmith/internal/fakeapi"
)

// description is GitHub's REST description cut to the operations served
// here; testdata/prune-openapi.mjs regenerates it from @octokit/openapi.
//
//go:embed testdata/api.github.com.pruned.json
var description []byte

// loadDescription parses the description once per test binary; the parsed
// document is only read afterwards.
var loadDescription = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(description)
	if err != nil {
		return nil, fmt.Errorf("load github openapi description: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("github openapi description is invalid: %w", err)
	}
	return doc, nil
})

// newRouter routes requests to base (the fake's URL) by the description.
func newRouter(base string) (routers.Router, error) {
	doc, err := loadDescription()
	if err != nil {
		return nil, err
	}
	return fakeapi.Router(doc, base)
}
