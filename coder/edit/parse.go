package edit

import (
	"strings"
)

// ParseOptions configure Parse.
type ParseOptions struct {
	// Path is used for blocks that name no file.
	Path string
	// Format restricts the parser to one format; FormatAuto detects each block.
	Format Format
}

// parser walks a model message line by line. Each recognised construct
// consumes its own lines and appends Edits; prose in between is skipped.
type parser struct {
	lines   []string
	i       int
	opts    ParseOptions
	edits   []Edit
	curPath string // path named by the last path line before a fence or block
}

// Parse extracts every edit block from a model message, in message order.
// Blocks cut off by the end of the message carry Problem == ReasonIncomplete;
// blocks with misplaced markers carry ReasonMalformed. Parse never touches the
// file system. It returns ErrNoEdits when nothing edit-like is found.
func Parse(text string, opts ParseOptions) ([]Edit, error) {
	text = strings.TrimPrefix(text, bom)
	if opts.Format == "" {
		opts.Format = FormatAuto
	}
	p := &parser{lines: splitEditLines(text), opts: opts}
	p.run()
	if len(p.edits) == 0 {
		p.fallback(text)
	}
	if len(p.edits) == 0 {
		return nil, ErrNoEdits
	}
	for i := range p.edits {
		p.edits[i].Index = i + 1
		if p.edits[i].Path == "" && p.edits[i].Op != OpMove {
			p.edits[i].Path = opts.Path
		}
	}
	return p.edits, nil
}

// wants reports whether the parser should recognise format f.
func (p *parser) wants(f Format) bool {
	return p.opts.Format == FormatAuto || p.opts.Format == f
}

func (p *parser) run() {
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "<chat>") || t == "<chat":
			p.skipChat()
		case isLinesTag(t) && p.wants(FormatLines):
			p.linesTag()
		case strings.HasPrefix(t, "<file-edit"):
			p.fileEdit()
		case t == "*** Begin Patch" && p.wants(FormatPatch):
			p.patch()
		case isSearchMarker(l) && p.wants(FormatSearchReplace):
			p.searchReplace(p.pathBefore(p.i), FormatSearchReplace, len(p.lines))
		case p.wants(FormatDiff) && isDiffHeader(p.lines, p.i):
			p.diff()
		default:
			p.i++
		}
	}
}

// skipChat skips a <chat>…</chat> prose section.
func (p *parser) skipChat() {
	for ; p.i < len(p.lines); p.i++ {
		if strings.Contains(p.lines[p.i], "</chat>") {
			p.i++
			return
		}
	}
}

// fallback handles texts with no recognised construct: a forced whole-file or
// lazy format takes the whole text (or its single fenced block) as content.
func (p *parser) fallback(text string) {
	body := stripFence(splitEditLines(text))
	switch {
	case p.opts.Format == FormatWhole:
		p.edits = append(p.edits, Edit{Format: FormatWhole, Op: OpWhole, Replace: body})
	case p.opts.Format == FormatLazy || (p.opts.Format == FormatAuto && hasLazyMarker(body)):
		p.edits = append(p.edits, Edit{Format: FormatLazy, Op: OpLazy, Replace: body})
	}
}

// fileEdit parses <file-edit filePath="..." [mode="lazy|whole"]> … </file-edit>.
func (p *parser) fileEdit() {
	open := p.lines[p.i]
	attrs := open[strings.Index(open, "<file-edit"):]
	end := strings.IndexByte(attrs, '>')
	rest := ""
	if end >= 0 {
		rest = attrs[end+1:]
		attrs = attrs[:end]
	}
	path := attr(attrs, "filePath")
	if path == "" {
		path = attr(attrs, "path")
	}
	mode := strings.ToLower(attr(attrs, "mode"))
	start := p.i + 1
	var body []string
	if strings.TrimSpace(rest) != "" {
		body = append(body, rest)
	}
	closed := false
	j := start
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if k := strings.Index(l, "</file-edit>"); k >= 0 {
			if strings.TrimSpace(l[:k]) != "" {
				body = append(body, l[:k])
			}
			closed = true
			break
		}
		body = append(body, l)
	}
	p.i = j + 1
	p.emitFileEdit(path, mode, body, closed)
}

// emitFileEdit turns the body of a <file-edit> tag into edits.
func (p *parser) emitFileEdit(path, mode string, body []string, closed bool) {
	switch {
	case mode == "lazy" || (mode == "" && !hasSRMarker(body) && hasLazyMarker(body)):
		if !p.wants(FormatLazy) {
			return
		}
		e := Edit{Path: path, Format: FormatLazy, Op: OpLazy, Replace: stripFence(body)}
		if !closed {
			e.Problem, e.Detail = ReasonIncomplete, "the message ends before </file-edit>"
		}
		p.edits = append(p.edits, e)
	case mode == "whole" || mode == "create" || (mode == "" && !hasSRMarker(body)):
		if !p.wants(FormatWhole) {
			return
		}
		e := Edit{Path: path, Format: FormatWhole, Op: OpWhole, Replace: stripFence(body)}
		if !closed {
			e.Problem, e.Detail = ReasonIncomplete, "the message ends before </file-edit>"
		}
		p.edits = append(p.edits, e)
	default:
		if !p.wants(FormatSearchReplace) {
			return
		}
		sub := &parser{lines: body, opts: p.opts}
		for sub.i < len(sub.lines) {
			if isSearchMarker(sub.lines[sub.i]) {
				sub.searchReplace(path, FormatSearchReplace, len(sub.lines))
				continue
			}
			sub.i++
		}
		if !closed && len(sub.edits) > 0 {
			last := &sub.edits[len(sub.edits)-1]
			if last.Problem == "" {
				last.Problem, last.Detail = ReasonIncomplete, "the message ends before </file-edit>"
			}
		}
		p.edits = append(p.edits, sub.edits...)
	}
}

// attr extracts name="value" (or 'value') from a tag's attribute text.
func attr(tag, name string) string {
	for _, q := range []string{`"`, `'`} {
		key := name + "=" + q
		i := strings.Index(tag, key)
		if i < 0 {
			continue
		}
		v := tag[i+len(key):]
		if j := strings.Index(v, q); j >= 0 {
			return v[:j]
		}
		return v
	}
	return ""
}

// stripFence removes one surrounding ``` fence (with an optional language tag)
// and blank lines outside it.
func stripFence(body []string) []string {
	lo, hi := 0, len(body)
	for lo < hi && strings.TrimSpace(body[lo]) == "" {
		lo++
	}
	for hi > lo && strings.TrimSpace(body[hi-1]) == "" {
		hi--
	}
	if hi-lo >= 2 && isFence(body[lo]) && strings.TrimSpace(body[hi-1]) == strings.Repeat("`", fenceLen(body[lo])) {
		return body[lo+1 : hi-1]
	}
	return body[lo:hi]
}

// isFence reports whether l opens or closes a Markdown code fence.
func isFence(l string) bool {
	return fenceLen(l) >= 3
}

// fenceLen counts the leading backticks of a trimmed line.
func fenceLen(l string) int {
	t := strings.TrimSpace(l)
	n := 0
	for n < len(t) && t[n] == '`' {
		n++
	}
	return n
}

// pathBefore finds the path line that introduces the block starting at line
// i: the line before an opening fence, or just before the marker. It falls
// back to the last path seen, then to "" (Options.Path).
func (p *parser) pathBefore(i int) string {
	j := i - 1
	for j >= 0 && strings.TrimSpace(p.lines[j]) == "" {
		j--
	}
	if j >= 0 && isFence(p.lines[j]) {
		j--
		for j >= 0 && strings.TrimSpace(p.lines[j]) == "" {
			j--
		}
	}
	if j >= 0 {
		if path, ok := pathLine(p.lines[j]); ok {
			p.curPath = path
			return path
		}
	}
	return p.curPath
}

// pathLine reports whether l looks like a file path written alone on a line
// (optionally in backticks or bold, or after "File:" / a heading mark).
func pathLine(l string) (string, bool) {
	t := strings.TrimSpace(l)
	t = strings.TrimLeft(t, "#")
	t = strings.TrimSpace(t)
	for _, pre := range []string{"File:", "file:", "Path:", "path:"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, pre))
	}
	t = strings.Trim(t, "*`")
	t = strings.TrimSuffix(t, ":")
	t = strings.Trim(t, "*`")
	if t == "" || len(t) > 300 || strings.ContainsAny(t, " \t<>|\"'") || isFence(t) {
		return "", false
	}
	if !strings.ContainsAny(t, "./") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "+++") || strings.HasPrefix(t, "***") {
		return "", false
	}
	return t, true
}
