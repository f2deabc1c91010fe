package llamatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Family is one model family's real chat template: where it comes from
// and the tokens the tiny model needs to go with it.
type Family struct {
	// Name is the family as the tests and the closing table name it.
	Name string
	// Source is the template's entry in @huggingface/ollama-utils' table of
	// the chat templates the Ollama library's GGUF files carry (copied
	// there from the vendors' Hugging Face repositories), or the file it
	// was read from (TemplatesDir).
	Source string
	// BOS and EOS as text ("" for none).
	BOS, EOS string
	// Specials the template needs that specialPattern does not find.
	Specials []string
	// Favor: texts the model favours so that a free-text argument value
	// ends within a few tokens (the value's closing tag).
	Favor []string
	// Grammar: llama.cpp finds a tool-call format in this template and
	// constrains a required call with its grammar, so a forced run must
	// run calls its parser read.
	Grammar bool
	// TextOnly: the template knows no tool role and raises ("Conversation
	// roles must alternate", "Only user, system and assistant roles are
	// supported!") on a history holding tool calls and results;
	// the client must learn that from the refusal and send such turns as
	// text.
	TextOnly bool
	// Text is the template (filled by Load).
	Text string
}

// Families are the families users run, each with the template its GGUF
// files carry. Mistral's tool-calling template (Mistral Nemo, Small 3.x,
// Devstral with tools) and gpt-oss's are in no registry package; they are
// read from ISSUESMITH_LLAMA_TEMPLATES when set (see Load).
var Families = []Family{
	// Qwen3 favours opening and closing its reasoning: its replies carry
	// some, which the loop sends back.
	{Name: "qwen3", Source: "library/qwen3:0.6b", EOS: "<|im_end|>", Specials: []string{"<|endoftext|>"},
		Favor: []string{"<think>\n", "\n</think>\n\n"}, Grammar: true},
	{Name: "qwen3-coder", Source: "library/qwen3-coder:30b", EOS: "<|im_end|>", Specials: []string{"<|endoftext|>"},
		Favor: []string{"\n</parameter>\n"}, Grammar: true},
	{Name: "llama3.1", Source: "library/llama3.1:8b", BOS: "<|begin_of_text|>", EOS: "<|eot_id|>",
		Specials: []string{"<|end_of_text|>"}, Grammar: true},
	{Name: "llama3.2", Source: "library/llama3.2:3b", BOS: "<|begin_of_text|>", EOS: "<|eot_id|>",
		Specials: []string{"<|end_of_text|>"}, Grammar: true},
	{Name: "mistral-small", Source: "library/mistral-small:24b", BOS: "<s>", EOS: "</s>", TextOnly: true},
	{Name: "devstral", Source: "library/devstral:latest", BOS: "<s>", EOS: "</s>", TextOnly: true},
	{Name: "deepseek-v3", Source: "library/deepseek-v3:671b", BOS: "<｜begin▁of▁sentence｜>", EOS: "<｜end▁of▁sentence｜>"},
	// llama.cpp b10257 finds a format in DeepSeek V3.1's template, but its
	// grammar keeps the probe values of its analysis ({'path': 'XXXX'},
	// 'AA_ARG_FST_AA') and its parser reads no call from what that
	// grammar lets the model write: no call can run (the reply comes back
	// as raw text).
	{Name: "deepseek-v3.1", Source: "library/deepseek-v3.1:latest", BOS: "<｜begin▁of▁sentence｜>",
		EOS: "<｜end▁of▁sentence｜>", Favor: []string{"'}"}},
	{Name: "deepseek-r1", Source: "library/deepseek-r1:8b", BOS: "<｜begin▁of▁sentence｜>", EOS: "<｜end▁of▁sentence｜>"},
	{Name: "glm4", Source: "library/glm4:9b", EOS: "<|endoftext|>", Specials: []string{"<|user|>", "<|observation|>"}},
	{Name: "gemma3", Source: "library/gemma3:1b", BOS: "<bos>", EOS: "<eos>", TextOnly: true},
}

// fileFamilies gives the tokens of templates read from files, by the
// file's name.
var fileFamilies = map[string]Family{
	"mistral-nemo": {BOS: "<s>", EOS: "</s>"},
	"gpt-oss":      {EOS: "<|return|>", Specials: []string{"<|endoftext|>", "<|call|>", "<|startoftext|>"}},
}

// Load returns Families with their templates, and one family for each
// NAME.jinja in the directory ISSUESMITH_LLAMA_TEMPLATES names (a local
// run's extra templates, never committed: the ones no registry package
// ships), with its tokens from fileFamilies.
func (e *Engine) Load(tb testing.TB) []Family {
	tb.Helper()
	var sources []string
	for _, f := range Families {
		sources = append(sources, f.Source)
	}
	texts := e.Templates(tb, sources...)
	out := make([]Family, 0, len(Families))
	for _, f := range Families {
		f.Text = texts[f.Source]
		out = append(out, f)
	}
	dir := os.Getenv("ISSUESMITH_LLAMA_TEMPLATES")
	if dir == "" {
		return out
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jinja"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".jinja")
		f := fileFamilies[name]
		f.Name, f.Source, f.Text, f.Grammar = name, file, string(b), true
		out = append(out, f)
	}
	return out
}

// Model writes the family's tiny GGUF into the test's temporary directory.
func (f Family) Model(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), f.Name+".gguf")
	t := Template{Name: f.Name, Text: f.Text, BOS: f.BOS, EOS: f.EOS, Specials: f.Specials, Favor: f.Favor}
	if err := WriteModel(path, t, TinyShape, 1); err != nil {
		tb.Fatal(err)
	}
	return path
}
