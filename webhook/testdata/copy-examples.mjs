#!/usr/bin/env node
// copy-examples.mjs copies the webhook payloads the tests use out of the npm
// package @octokit/webhooks-examples (real deliveries contributed to
// octokit/webhooks), one file per event and action: EVENT.ACTION.json.
//
// Regenerate (from the repository root):
//   npm install --prefix /tmp/octokit-webhooks @octokit/webhooks-examples@7.6.1
//   node webhook/testdata/copy-examples.mjs /tmp/octokit-webhooks/node_modules/@octokit/webhooks-examples
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const WANT = {
  issues: ["labeled", "unlabeled", "reopened", "edited", "opened"], // no "closed" example exists: tests close a reopened one
  issue_comment: ["created", "edited", "deleted"],
  pull_request: ["closed", "opened"],
  pull_request_review: ["submitted", "dismissed"],
  pull_request_review_comment: ["created", "edited"],
  installation: ["created", "deleted", "new_permissions_accepted"],
  installation_repositories: ["added", "removed"],
  push: [""],
  check_run: ["completed"],
  check_suite: ["completed"],
  workflow_run: ["completed"],
  ping: [""],
};

const pkg = process.argv[2];
if (!pkg) {
  console.error("usage: copy-examples.mjs PATH/TO/node_modules/@octokit/webhooks-examples");
  process.exit(2);
}
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const all = JSON.parse(readFileSync(join(pkg, "api.github.com", "index.json"), "utf8"));
const here = dirname(fileURLToPath(import.meta.url));
let n = 0;
for (const [event, actions] of Object.entries(WANT)) {
  const entry = all.find((e) => e.name === event);
  if (!entry) throw new Error(`no ${event} in @octokit/webhooks-examples ${version}`);
  for (const action of actions) {
    // Prefer an example delivered to an App (it has "installation"), then
    // one whose CI ran for a pull request.
    const matches = entry.examples.filter((x) => (x.action ?? "") === action);
    const hasPR = (x) => (x[event]?.pull_requests ?? []).length > 0;
    const ex = matches.find((x) => x.installation) ?? matches.find(hasPR) ?? matches[0];
    if (!ex) throw new Error(`no ${event}.${action} example in @octokit/webhooks-examples ${version}`);
    const name = action ? `${event}.${action}.json` : `${event}.json`;
    writeFileSync(join(here, name), JSON.stringify(ex, null, 2) + "\n");
    n++;
  }
}
writeFileSync(join(here, "SOURCE"), `@octokit/webhooks-examples@${version} api.github.com/index.json\n`);
console.log(`copied ${n} payloads from @octokit/webhooks-examples@${version}`);
