// Command prune writes ../gitea-1.26.0.pruned.json: the operations the fake
// Gitea (gitea/giteatest) serves, cut from Gitea's own swagger 2.0
// description (templates/swagger/v1_json.tmpl of code.gitea.io/gitea) with
// every definition, response and parameter they reference and nothing
// else, so `go test` stays offline. The template is rendered the way Gitea
// renders it for a server at the root URL: {{.SwaggerAppVer}} is the
// version, {{.SwaggerAppSubUrl}} empty.
//
// Regenerate (from gitea/giteatest; the module cache holds Gitea's source
// once `go mod download code.gitea.io/gitea@v1.26.0` has run):
//
//	go generate .
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// operations are the calls of package gitea, as the description names them.
var operations = [][2]string{
	{"get", "/version"},
	{"get", "/user"},
	{"get", "/user/repos"},
	{"get", "/repos/{owner}/{repo}"},
	{"get", "/repos/{owner}/{repo}/raw/{filepath}"},
	{"get", "/repos/{owner}/{repo}/issues"},
	{"get", "/repos/{owner}/{repo}/issues/{index}"},
	{"get", "/repos/{owner}/{repo}/issues/{index}/comments"},
	{"post", "/repos/{owner}/{repo}/issues/{index}/comments"},
	{"get", "/repos/{owner}/{repo}/issues/comments"},
	{"get", "/repos/{owner}/{repo}/issues/comments/{id}"},
	{"patch", "/repos/{owner}/{repo}/issues/comments/{id}"},
	{"post", "/repos/{owner}/{repo}/issues/{index}/reactions"},
	{"get", "/repos/{owner}/{repo}/issues/{index}/labels"},
	{"delete", "/repos/{owner}/{repo}/issues/{index}/labels/{id}"},
	{"get", "/repos/{owner}/{repo}/pulls"},
	{"post", "/repos/{owner}/{repo}/pulls"},
	{"get", "/repos/{owner}/{repo}/pulls/{index}"},
	{"patch", "/repos/{owner}/{repo}/pulls/{index}"},
	{"get", "/repos/{owner}/{repo}/pulls/{base}/{head}"},
	{"post", "/repos/{owner}/{repo}/pulls/{index}/requested_reviewers"},
	{"get", "/repos/{owner}/{repo}/pulls/{index}/reviews"},
	{"get", "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments"},
	{"get", "/repos/{owner}/{repo}/commits/{ref}/status"},
	{"post", "/repos/{owner}/{repo}/statuses/{sha}"},
	{"get", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission"},
	{"get", "/repos/{owner}/{repo}/hooks"},
	{"post", "/repos/{owner}/{repo}/hooks"},
	{"get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"},
}

const version = "1.26.0"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: prune GITEA_SOURCE_DIR OUT.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "prune:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	raw, err := os.ReadFile(filepath.Join(src, "templates", "swagger", "v1_json.tmpl"))
	if err != nil {
		return err
	}
	text := strings.NewReplacer("{{.SwaggerAppVer}}", version, "{{.SwaggerAppSubUrl}}", "").Replace(string(raw))
	if strings.Contains(text, "{{") {
		return fmt.Errorf("the template has a placeholder this program does not render")
	}
	var full map[string]any
	if err := json.Unmarshal([]byte(text), &full); err != nil {
		return fmt.Errorf("parse the rendered description: %w", err)
	}
	allPaths := full["paths"].(map[string]any)
	paths := map[string]any{}
	for _, op := range operations {
		item, _ := allPaths[op[1]].(map[string]any)
		if item == nil || item[op[0]] == nil {
			return fmt.Errorf("%s %s is not in Gitea %s's description", strings.ToUpper(op[0]), op[1], version)
		}
		kept, _ := paths[op[1]].(map[string]any)
		if kept == nil {
			kept = map[string]any{}
			if p, ok := item["parameters"]; ok {
				kept["parameters"] = p
			}
			paths[op[1]] = kept
		}
		kept[op[0]] = item[op[0]]
	}
	pruned := map[string]any{
		"swagger": full["swagger"], "info": full["info"], "basePath": full["basePath"],
		"consumes": full["consumes"], "produces": full["produces"], "schemes": full["schemes"],
		"securityDefinitions": full["securityDefinitions"], "security": full["security"],
		"paths": paths,
	}
	info := pruned["info"].(map[string]any)
	info["x-pruned-from"] = "code.gitea.io/gitea@v" + version + " templates/swagger/v1_json.tmpl"
	n := keepReferenced(full, pruned)
	data, err := json.MarshalIndent(pruned, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d operations, %d referenced objects, from Gitea %s\n", out, len(operations), n, version)
	return nil
}

// keepReferenced copies into pruned every "#/definitions/…",
// "#/responses/…" and "#/parameters/…" reachable from its paths.
func keepReferenced(full, pruned map[string]any) int {
	seen := map[string]bool{}
	queue := []any{pruned["paths"]}
	for len(queue) > 0 {
		node := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		switch v := node.(type) {
		case []any:
			queue = append(queue, v...)
		case map[string]any:
			for k, child := range v {
				ref, ok := child.(string)
				if k != "$ref" || !ok || seen[ref] {
					queue = append(queue, child)
					continue
				}
				seen[ref] = true
				parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
				target := full[parts[0]].(map[string]any)[parts[1]]
				section, _ := pruned[parts[0]].(map[string]any)
				if section == nil {
					section = map[string]any{}
					pruned[parts[0]] = section
				}
				section[parts[1]] = target
				queue = append(queue, target)
			}
		}
	}
	return len(seen)
}
