package llamatest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
)

// Template is one model family's chat template and the tokens it needs.
type Template struct {
	// Name names the family in test names and messages.
	Name string
	// Text is the Jinja chat template (tokenizer.chat_template).
	Text string
	// BOS and EOS are the family's begin and end tokens as text ("" for
	// none: the first special token found stands in).
	BOS, EOS string
	// Specials are tokens the template uses that the pattern below does
	// not find.
	Specials []string
	// Favor are texts added as tokens that the model favours (see
	// favour), such as the end of a tool call's free-text value.
	Favor []string
}

// specialPattern finds the special tokens a template writes: <|x|>,
// DeepSeek's <｜x｜>, [INST]-style tags, and the tags tool-call and
// reasoning formats use.
var specialPattern = regexp.MustCompile(`<\|[^|<>\s'"]{1,40}\|>|<｜[^｜<>'"]{1,40}｜>|\[/?[A-Z_]{2,20}\]|</?(?:tool_call|tool_response|tools|think|start_of_turn|end_of_turn|bos|eos|sop|eop|arg_key|arg_value|function_calls?|tool_calls?|s|/s)>|\[gMASK\]`)

// specials lists the template's special tokens, BOS and EOS first.
func (t Template) specials() []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(t.BOS)
	add(t.EOS)
	for _, s := range specialPattern.FindAllString(t.Text, -1) {
		add(s)
	}
	for _, s := range t.Specials {
		add(s)
	}
	return out
}

// byteTokens is GPT-2's byte-to-unicode table: the text of the 256 byte
// tokens of a byte-level BPE vocabulary, as llama.cpp's "gpt2" tokenizer
// expects them.
func byteTokens() []string {
	var bs []int
	for b := '!'; b <= '~'; b++ {
		bs = append(bs, int(b))
	}
	for b := '¡'; b <= '¬'; b++ {
		bs = append(bs, int(b))
	}
	for b := '®'; b <= 'ÿ'; b++ {
		bs = append(bs, int(b))
	}
	out := make([]string, 256)
	for _, b := range bs {
		out[b] = string(rune(b))
	}
	n := 0
	for b := range 256 {
		if out[b] == "" {
			out[b] = string(rune(256 + n))
			n++
		}
	}
	return out
}

// WriteModel writes a llama-architecture GGUF with random weights of the
// given shape, a byte-level BPE vocabulary (no merges: every byte is a
// token), the favoured texts, the template's special tokens as control
// tokens, and the template as tokenizer.chat_template.
func WriteModel(path string, t Template, shape Shape, seed uint64) error {
	tokens := byteTokens()
	types := make([]int32, len(tokens), len(tokens)+len(t.Favor)+32)
	for i := range types {
		types[i] = tokenNormal
	}
	index := map[string]int{}
	for i, s := range tokens {
		index[s] = i
	}
	favoured := []int{index[`"`]}
	for _, s := range t.Favor {
		favoured = append(favoured, len(tokens))
		tokens = append(tokens, gpt2Text(s))
		types = append(types, tokenNormal)
	}
	specials := t.specials()
	if len(specials) == 0 {
		return fmt.Errorf("template %s: no special tokens found", t.Name)
	}
	first := len(tokens)
	for _, s := range specials {
		index[s] = len(tokens)
		tokens = append(tokens, s)
		types = append(types, tokenControl)
	}
	bos, eos := first, first
	if t.BOS != "" {
		bos = index[t.BOS]
	}
	if t.EOS != "" {
		eos = index[t.EOS]
	}
	vocab := uint64(len(tokens))

	e, ff := uint64(shape.Embd), uint64(shape.FF)
	headDim := e / uint64(shape.Heads)
	kvDim := headDim * uint64(shape.KVHeads)
	kvs := []kv{
		{"general.architecture", ggufString, "llama"},
		{"general.name", ggufString, "issuesmith-tiny-" + t.Name},
		{"general.alignment", ggufUint32, uint32(ggufAlign)},
		{"llama.context_length", ggufUint32, uint32(shape.Context)},
		{"llama.embedding_length", ggufUint32, uint32(e)},
		{"llama.block_count", ggufUint32, uint32(shape.Layers)},
		{"llama.feed_forward_length", ggufUint32, uint32(ff)},
		{"llama.attention.head_count", ggufUint32, uint32(shape.Heads)},
		{"llama.attention.head_count_kv", ggufUint32, uint32(shape.KVHeads)},
		{"llama.rope.dimension_count", ggufUint32, uint32(headDim)},
		{"llama.attention.layer_norm_rms_epsilon", ggufFloat32, float32(1e-5)},
		{"llama.vocab_size", ggufUint32, uint32(vocab)},
		{"tokenizer.ggml.model", ggufString, "gpt2"},
		{"tokenizer.ggml.pre", ggufString, "default"},
		{"tokenizer.ggml.tokens", ggufArray, tokens},
		{"tokenizer.ggml.token_type", ggufArray, types},
		{"tokenizer.ggml.merges", ggufArray, []string{}},
		{"tokenizer.ggml.bos_token_id", ggufUint32, uint32(bos)},
		{"tokenizer.ggml.eos_token_id", ggufUint32, uint32(eos)},
		{"tokenizer.ggml.add_bos_token", ggufBool, false},
		{"tokenizer.chat_template", ggufString, t.Text},
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	embd := randomTensor(r, "token_embd.weight", e, vocab)
	out := randomTensor(r, "output.weight", e, vocab)
	favour(embd, out, e, favoured, shape.Favor)
	tensors := []tensor{embd, onesTensor("output_norm.weight", e), out}
	for l := range shape.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		tensors = append(tensors,
			onesTensor(p+"attn_norm.weight", e),
			randomTensor(r, p+"attn_q.weight", e, e),
			randomTensor(r, p+"attn_k.weight", e, kvDim),
			randomTensor(r, p+"attn_v.weight", e, kvDim),
			randomTensor(r, p+"attn_output.weight", e, e),
			onesTensor(p+"ffn_norm.weight", e),
			randomTensor(r, p+"ffn_gate.weight", e, ff),
			randomTensor(r, p+"ffn_up.weight", e, ff),
			randomTensor(r, p+"ffn_down.weight", ff, e),
		)
	}
	return writeGGUF(path, kvs, tensors)
}

// favour makes the model prefer some tokens by boost (in logits, roughly)
// wherever it is: every embedding shares a constant first dimension that
// the residual stream carries to the output norm, and the token's output
// row reads it. A random model favouring '"' closes the JSON strings a
// grammar holds it in within a few tokens, so its tool calls end well
// inside max_tokens.
func favour(embd, out tensor, e uint64, toks []int, boost float32) {
	if boost == 0 {
		return
	}
	const anchor = 4
	for t := range uint64(len(embd.data)) / e {
		embd.data[t*e] = anchor
		out.data[t*e] = 0
	}
	for _, t := range toks {
		out.data[uint64(t)*e] = boost / anchor
	}
}

// gpt2Text is s as a byte-level BPE vocabulary spells it (each byte as
// GPT-2's printable stand-in).
func gpt2Text(s string) string {
	bytes := byteTokens()
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteString(bytes[c])
	}
	return b.String()
}
