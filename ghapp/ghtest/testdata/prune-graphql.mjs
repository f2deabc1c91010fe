#!/usr/bin/env node
// prune-graphql.mjs writes github.pruned.graphql: the part of GitHub's
// published GraphQL schema (npm @octokit/graphql-schema) that the fake
// GitHub (ghapp/ghtest) serves at POST /graphql, so the fake validates every
// query the bot sends against GitHub's own types while `go test` stays
// offline. Only the fields listed in KEEP survive; the input types their
// arguments use are kept whole.
//
// Regenerate (from the repository root):
//   npm install --prefix /tmp/octokit-graphql @octokit/graphql-schema@15.26.1
//   node ghapp/ghtest/testdata/prune-graphql.mjs /tmp/octokit-graphql/node_modules/@octokit/graphql-schema
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The object types and fields the bot's queries and mutations touch.
// (A schema needs a query root: Query keeps one small field.)
const KEEP = {
  Query: ["rateLimit"],
  RateLimit: ["limit", "remaining", "resetAt"],
  Mutation: ["markPullRequestReadyForReview"],
  MarkPullRequestReadyForReviewPayload: ["clientMutationId", "pullRequest"],
  PullRequest: ["id", "number", "isDraft"],
};

const pkg = process.argv[2];
if (!pkg) {
  console.error("usage: prune-graphql.mjs PATH/TO/node_modules/@octokit/graphql-schema");
  process.exit(2);
}
const require = createRequire(join(pkg, "package.json"));
const g = require("graphql");
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
// GitHub's SDL defines a field twice in places: build it without checks.
const schema = g.buildSchema(readFileSync(join(pkg, "schema.graphql"), "utf8"), { assumeValidSDL: true });

const out = new Map(); // type name → SDL
const todo = [];
const need = (t) => {
  const named = g.getNamedType(t);
  if (!g.isSpecifiedScalarType(named) && !out.has(named.name) && !todo.includes(named.name)) todo.push(named.name);
};
const args = (f) => f.args.length === 0 ? "" :
  "(" + f.args.map((a) => { need(a.type); return `${a.name}: ${a.type}`; }).join(", ") + ")";
for (const name of Object.keys(KEEP)) todo.push(name);
while (todo.length) {
  const name = todo.shift();
  const t = schema.getType(name);
  if (!t) throw new Error(`no type ${name} in @octokit/graphql-schema ${version}`);
  if (g.isObjectType(t)) {
    const keep = KEEP[name];
    if (!keep) throw new Error(`${name} is reached by a kept field: list the fields to keep in KEEP`);
    const fields = keep.map((f) => {
      const fd = t.getFields()[f];
      if (!fd) throw new Error(`no field ${name}.${f} in @octokit/graphql-schema ${version}`);
      need(fd.type);
      return `  ${f}${args(fd)}: ${fd.type}`;
    });
    out.set(name, `type ${name} {\n${fields.join("\n")}\n}`);
  } else if (g.isInputObjectType(t)) {
    const fields = Object.values(t.getFields()).map((f) => { need(f.type); return `  ${f.name}: ${f.type}`; });
    out.set(name, `input ${name} {\n${fields.join("\n")}\n}`);
  } else if (g.isScalarType(t)) {
    out.set(name, `scalar ${name}`);
  } else if (g.isEnumType(t)) {
    out.set(name, `enum ${name} {\n${t.getValues().map((v) => "  " + v.name).join("\n")}\n}`);
  } else {
    throw new Error(`${name}: interfaces and unions are not pruned yet`);
  }
}
const header = `# Pruned from @octokit/graphql-schema@${version} schema.graphql by prune-graphql.mjs: do not edit.\n` +
  "schema {\n  query: Query\n  mutation: Mutation\n}\n";
const here = dirname(fileURLToPath(import.meta.url));
const file = join(here, "github.pruned.graphql");
writeFileSync(file, header + "\n" + [...out.values()].join("\n\n") + "\n");
console.log(`wrote ${file}: ${out.size} types from @octokit/graphql-schema@${version}`);
