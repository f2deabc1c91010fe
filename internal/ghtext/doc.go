// Package ghtext owns the text rules for what the bot writes on GitHub: the
// hidden marker (<!-- issuesmith:KIND run=ID v=N -->) that names the bot's own
// comments, and Defuse, which makes model-written Markdown inert (no
// @-mentions, no closing keywords, no HTML comment hiding the rest).
//
// It is pure string work: no network, no GitHub client, so both ghapp (which
// finds comments by marker) and the agents' comment renderers use it without
// depending on each other.
package ghtext
