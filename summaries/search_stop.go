package summaries

import "strings"

// stopWords are English function words and the filler of issue templates.
// In a code base they are not in every file (code has few of them,
// comments and docs many), so their inverse document frequency stays high
// and a long issue text lets prose-heavy files win on words that say
// nothing about the change. Standard retrieval drops them from the query;
// identifiers written as code are never dropped.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about above after again against all also am an and any are aren as at be because been before being below
between both but by can cannot could did didn do does doesn doing don down during each either else etc even
ever every few for from further had has hasn have having he her here hers herself him himself his how however
i if in into is isn it its itself just let ll may me might more most must mustn my myself no nor not now of
off on once only or other our ours ourselves out over own per rather re same shall she should shouldn since so
some such than that the their theirs them themselves then there these they this those though through thus to
too under until up upon us very via was wasn we were weren what when where whether which while who whom whose
why will with within without won would wouldn yet you your yours yourself yourselves
e.g eg i.e ie please currently instead actually already always never still really
`) {
		m[w] = true
	}
	return m
}()
