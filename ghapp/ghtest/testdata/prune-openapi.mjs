#!/usr/bin/env node
// prune-openapi.mjs writes api.github.com.pruned.json: the operations the
// fake GitHub (ghapp/ghtest) serves, cut from GitHub's published REST
// description in the npm package @octokit/openapi, with every component they
// reference and nothing else (examples dropped), so `go test` stays offline.
//
// Regenerate (from the repository root):
//   npm install --prefix /tmp/octokit-openapi @octokit/openapi@23.0.2
//   node ghapp/ghtest/testdata/prune-openapi.mjs /tmp/octokit-openapi/node_modules/@octokit/openapi
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OPERATIONS = [
  ["get", "/app"],
  ["get", "/app/hook/deliveries"],
  ["post", "/app/hook/deliveries/{delivery_id}/attempts"],
  ["post", "/app/installations/{installation_id}/access_tokens"],
  ["post", "/app-manifests/{code}/conversions"],
  ["get", "/repos/{owner}/{repo}"],
  ["get", "/repos/{owner}/{repo}/issues/{issue_number}"],
  ["get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["get", "/repos/{owner}/{repo}/issues/comments/{comment_id}"],
  ["patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"],
  ["post", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"],
  ["post", "/repos/{owner}/{repo}/issues/{issue_number}/reactions"],
  ["post", "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions"],
  ["post", "/repos/{owner}/{repo}/issues/{issue_number}/labels"],
  ["delete", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"],
  ["get", "/repos/{owner}/{repo}/collaborators/{username}/permission"],
  ["get", "/repos/{owner}/{repo}/pulls"],
  ["post", "/repos/{owner}/{repo}/pulls"],
  ["get", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["patch", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["post", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"],
  ["get", "/repos/{owner}/{repo}/pulls/{pull_number}/comments"],
  ["get", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"],
  ["post", "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies"],
  ["get", "/repos/{owner}/{repo}/contents/{path}"],
  // push: fork (issue 13 item 5)
  ["post", "/repos/{owner}/{repo}/forks"],
  ["get", "/orgs/{org}/installation"],
  ["get", "/users/{username}/installation"],
  ["get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"],
  ["get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"],
  ["get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"],
  // sessions page: the signed-in person, asked with their own token (issue 21)
  ["get", "/user"],
];

const pkg = process.argv[2];
if (!pkg) {
  console.error("usage: prune-openapi.mjs PATH/TO/node_modules/@octokit/openapi");
  process.exit(2);
}
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const full = JSON.parse(readFileSync(join(pkg, "generated", "api.github.com.json"), "utf8"));

// dropExamples removes example payloads, which validation never reads.
function dropExamples(node) {
  if (Array.isArray(node)) return node.map(dropExamples);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "examples" || k === "x-github") continue;
    out[k] = dropExamples(v);
  }
  return out;
}

const paths = {};
for (const [method, path] of OPERATIONS) {
  const item = full.paths[path];
  if (!item || !item[method]) throw new Error(`${method.toUpperCase()} ${path} is not in @octokit/openapi ${version}`);
  paths[path] ??= item.parameters ? { parameters: item.parameters } : {};
  paths[path][method] = dropExamples(item[method]);
}

// Keep the components reachable from the kept operations.
const components = {};
const queue = [paths];
const seen = new Set();
while (queue.length) {
  const node = queue.pop();
  if (Array.isArray(node)) { queue.push(...node); continue; }
  if (node === null || typeof node !== "object") continue;
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/") && !seen.has(v)) {
      seen.add(v);
      const [, , kind, name] = v.split("/");
      const target = dropExamples(full.components[kind][name]);
      (components[kind] ??= {})[name] = target;
      queue.push(target);
    } else {
      queue.push(v);
    }
  }
}
for (const kind of Object.keys(components)) {
  components[kind] = Object.fromEntries(Object.entries(components[kind]).sort(([a], [b]) => a.localeCompare(b)));
}

const out = {
  openapi: full.openapi,
  info: { ...full.info, "x-pruned-from": `@octokit/openapi@${version} generated/api.github.com.json` },
  servers: full.servers,
  paths,
  components,
};
const dest = join(dirname(fileURLToPath(import.meta.url)), "api.github.com.pruned.json");
writeFileSync(dest, JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${dest}: ${OPERATIONS.length} operations, ${seen.size} components, from @octokit/openapi@${version}`);
