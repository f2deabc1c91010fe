package llamatest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

// GGUF value types (ggml's gguf.h).
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
)

const ggufAlign = 32

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	tokenNormal      = 1
	tokenControl     = 3
	tokenUserDefined = 4
)

// Shape is the tiny llama model's size: a couple of layers of tiny
// dimensions, enough for llama.cpp to run every stage of inference.
type Shape struct {
	Embd, Layers, Heads, KVHeads, FF int
	Context                          int // llama.context_length
	// Favor is how much the model favours the token '"' and the
	// template's Favor texts (see favour), in logits.
	Favor float32
}

// TinyShape is what the tests use: about 0.5 MB of F32 weights.
var TinyShape = Shape{Embd: 64, Layers: 2, Heads: 4, KVHeads: 2, FF: 128, Context: 32768, Favor: 4}

// kv is one metadata entry.
type kv struct {
	key string
	typ uint32
	val any
}

// tensor is one F32 tensor; dims in ggml order (ne0 first).
type tensor struct {
	name string
	dims []uint64
	data []float32
}

// writeGGUF writes a GGUF v3 file: header, metadata, tensor infos, then the
// tensors' data, each aligned to ggufAlign.
func writeGGUF(path string, kvs []kv, tensors []tensor) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create gguf: %w", err)
	}
	w := &ggufWriter{w: bufio.NewWriter(f)}
	w.raw([]byte("GGUF"))
	w.u32(3)
	w.u64(uint64(len(tensors)))
	w.u64(uint64(len(kvs)))
	for _, e := range kvs {
		w.str(e.key)
		w.u32(e.typ)
		w.value(e.typ, e.val)
	}
	var offset uint64
	for _, t := range tensors {
		w.str(t.name)
		w.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			w.u64(d)
		}
		w.u32(0) // GGML_TYPE_F32
		w.u64(offset)
		offset += pad(uint64(4 * len(t.data)))
	}
	w.align()
	for _, t := range tensors {
		for _, v := range t.data {
			w.u32(math.Float32bits(v))
		}
		w.align()
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if cerr := f.Close(); w.err == nil {
		w.err = cerr
	}
	if w.err != nil {
		return fmt.Errorf("write gguf: %w", w.err)
	}
	return nil
}

func pad(n uint64) uint64 { return (n + ggufAlign - 1) / ggufAlign * ggufAlign }

type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (w *ggufWriter) raw(b []byte) {
	if w.err != nil {
		return
	}
	var n int
	n, w.err = w.w.Write(b)
	w.n += uint64(n)
}

func (w *ggufWriter) u32(v uint32) { w.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *ggufWriter) u64(v uint64) { w.raw(binary.LittleEndian.AppendUint64(nil, v)) }
func (w *ggufWriter) str(s string) { w.u64(uint64(len(s))); w.raw([]byte(s)) }

func (w *ggufWriter) align() {
	if r := w.n % ggufAlign; r != 0 {
		w.raw(make([]byte, ggufAlign-r))
	}
}

func (w *ggufWriter) value(typ uint32, v any) {
	switch typ {
	case ggufUint32:
		w.u32(v.(uint32))
	case ggufInt32:
		w.u32(uint32(v.(int32)))
	case ggufFloat32:
		w.u32(math.Float32bits(v.(float32)))
	case ggufBool:
		b := byte(0)
		if v.(bool) {
			b = 1
		}
		w.raw([]byte{b})
	case ggufString:
		w.str(v.(string))
	case ggufArray:
		switch a := v.(type) {
		case []string:
			w.u32(ggufString)
			w.u64(uint64(len(a)))
			for _, s := range a {
				w.str(s)
			}
		case []int32:
			w.u32(ggufInt32)
			w.u64(uint64(len(a)))
			for _, x := range a {
				w.u32(uint32(x))
			}
		default:
			w.err = fmt.Errorf("gguf array of %T", v)
		}
	default:
		w.err = fmt.Errorf("gguf type %d", typ)
	}
}

// randomTensor fills a tensor of dims with small random weights.
func randomTensor(r *rand.Rand, name string, dims ...uint64) tensor {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	data := make([]float32, n)
	scale := float32(1 / math.Sqrt(float64(dims[0])))
	for i := range data {
		data[i] = float32(r.NormFloat64()) * scale
	}
	return tensor{name: name, dims: dims, data: data}
}

func onesTensor(name string, n uint64) tensor {
	data := make([]float32, n)
	for i := range data {
		data[i] = 1
	}
	return tensor{name: name, dims: []uint64{n}, data: data}
}
