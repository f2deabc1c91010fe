package giteatest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/issuesmith/issuesmith/internal/fakeapi"
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
	return fakeapi.Router(doc, api)
}

// jsonHeader is the header of the fake's JSON answers, as checked.
var jsonHeader = http.Header{"Content-Type": {"application/json;charset=utf-8"}}
