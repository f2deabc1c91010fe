package llmtest

import "github.com/issuesmith/issuesmith/llm"

// WithPrefixCache reports cached_tokens as automatic prefix caching counts
// them (llm.PrefixCache: the longest prefix of a request equal to an
// earlier one's, in 128-token blocks from 1,024) in every reply whose
// script gives usage without a cached count.
func WithPrefixCache() Option { return func(s *Server) { s.cache = &llm.PrefixCache{} } }

// withCache is a with its cached count filled by the prefix cache.
func (s *Server) withCache(a Answer, req Request) Answer {
	if s.cache == nil {
		return a
	}
	prompt := 0
	if a.Usage != nil {
		prompt = a.Usage.Prompt
	}
	n := s.cache.Cached(llm.PromptText(req.Messages), prompt)
	if a.Usage != nil && a.Usage.Cached == 0 {
		u := *a.Usage
		u.Cached = n
		a.Usage = &u
	}
	return a
}
