// An OpenAI-compatible chat completions server over llama.cpp, for the
// tests of package llamatest. llama.cpp comes from the npm package
// @fugood/llama.node (prebuilt binaries in @fugood/node-llama-linux-x64),
// installed under PREFIX; the chat templates, their grammars and the
// parsing of the model's output into content, reasoning and tool calls are
// llama.cpp's own (jinja: true, its common_chat parser). This script only
// maps HTTP to llama.node's completion() and back, as llama-server does.
//
//   node server.mjs PREFIX templates NAME...     JSON {name: template} from
//       @huggingface/ollama-utils' table of GGUF chat templates
//   node server.mjs PREFIX serve MODEL.gguf CTX FORCE [TEXT_GRAMMAR]
//       serve on 127.0.0.1 (port 0); prints {"port":N} once ready. FORCE
//       "required" answers every request that offers tools as if it asked
//       tool_choice "required" (llama.cpp's grammar then writes a call);
//       TEXT_GRAMMAR (GBNF) constrains replies to requests without tools
//       or response_format (an action of the text protocol).
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import crypto from 'node:crypto'
import { createRequire } from 'node:module'

const [prefix, cmd, ...args] = process.argv.slice(2)
const require = createRequire(path.join(prefix, 'package.json'))

if (cmd === 'templates') {
  const file = path.join(prefix, 'node_modules', '@huggingface', 'ollama-utils', 'src', 'chat-template-automap.ts')
  let src = fs.readFileSync(file, 'utf8')
  src = src.replace(/^import type .*$/m, '')
    .replace(/export const OLLAMA_CHAT_TEMPLATE_MAPPING\s*:\s*OllamaChatTemplateMapEntry\[\]\s*=/, 'return ')
  const table = new Function(src)()
  const out = {}
  for (const name of args) {
    const entry = table.find((e) => e.model === name)
    if (!entry) {
      console.error(`no template for ${name} in ${file}`)
      process.exit(2)
    }
    out[name] = entry.gguf
  }
  process.stdout.write(JSON.stringify(out))
  process.exit(0)
}

if (cmd !== 'serve') {
  console.error('usage: server.mjs PREFIX templates NAME... | serve MODEL CTX FORCE')
  process.exit(2)
}

const [modelPath, ctxArg, force, textGrammar = ''] = args
const nCtx = Number(ctxArg)
const { loadModel } = require('@fugood/llama.node')
const ctx = await loadModel({ model: modelPath, n_ctx: nCtx, n_threads: 2, n_batch: 2048, use_mmap: true })
const info = ctx.getModelInfo()

// One completion at a time: llama.node's context runs one.
let queue = Promise.resolve()
const serial = (fn) => {
  const run = queue.then(fn, fn)
  queue = run.catch(() => {})
  return run
}

// Ids of 32 alphanumerics, as llama-server gives a call whose model wrote
// none; drawn from a counter, so that a run is the same every time.
let idSeq = 0
const randomID = () => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const h = crypto.createHash('sha256').update(`id ${idSeq++}`).digest()
  return Array.from(h, (b) => abc[b % abc.length]).join('')
}

function options(body) {
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : undefined
  let toolChoice = body.tool_choice
  if (typeof toolChoice === 'object' && toolChoice) toolChoice = 'required'
  if (!toolChoice) toolChoice = tools && force === 'required' ? 'required' : 'auto'
  // llama.node reads a key that is present even when it is undefined.
  return defined({
    messages: body.messages,
    jinja: true,
    tools,
    tool_choice: tools ? toolChoice : undefined,
    parallel_tool_calls: body.parallel_tool_calls ?? false,
    response_format: body.response_format,
    reasoning_format: 'auto',
    n_predict: body.max_completion_tokens ?? body.max_tokens ?? 64,
    temperature: body.temperature ?? 0.8,
    seed: body.seed ?? 7,
  })
}

const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null))

function toolCalls(calls) {
  return (calls || []).map((c, i) => ({
    index: i,
    id: c.id || randomID(),
    type: 'function',
    function: { name: c.function.name, arguments: c.function.arguments },
  }))
}

function finish(result, calls) {
  if (calls.length > 0) return 'tool_calls'
  return result.stopped_limited ? 'length' : 'stop'
}

function usage(result) {
  return {
    prompt_tokens: result.prompt_tokens,
    completion_tokens: result.tokens_predicted,
    total_tokens: result.prompt_tokens + result.tokens_predicted,
  }
}

// complete runs one completion; onStart is called once the request was
// formatted (a template's refusal comes before any answer, as a 500),
// onToken with llama.node's partial parses.
async function complete(body, onStart, onToken) {
  const opts = options(body)
  // The prompt's full length, as llama-server reports prompt_tokens
  // (tokens_evaluated leaves out what the KV cache reused).
  const formatted = ctx.getFormattedChat(opts.messages, undefined, defined({
    jinja: true, tools: opts.tools, tool_choice: opts.tool_choice,
    parallel_tool_calls: opts.parallel_tool_calls, response_format: opts.response_format,
    reasoning_format: opts.reasoning_format,
  }))
  const { tokens } = await ctx.tokenize(formatted.prompt)
  if (tokens.length + opts.n_predict > nCtx) {
    const err = new Error(`the request exceeds the available context size (${tokens.length} tokens, n_ctx ${nCtx})`)
    err.status = 400
    err.type = 'exceed_context_size_error'
    throw err
  }
  if (force === 'required' && opts.tools && opts.tool_choice !== 'none') {
    forceCall(opts)
  } else if (textGrammar && !opts.tools && !opts.response_format) {
    opts.grammar = textGrammar
  }
  onStart?.()
  const result = await ctx.completion(opts, onToken)
  result.prompt_tokens = tokens.length
  if (process.env.LLAMATEST_DEBUG) {
    console.error('completion:', JSON.stringify({ grammar: opts.grammar?.split('\n').filter((l) => l.startsWith('root')),
      text: result.text, content: result.content, reasoning: result.reasoning_content, calls: result.tool_calls }))
  }
  return result
}

// forceCall sets llama.cpp's own grammar for a required tool call on
// opts, less the free text (gpt-oss: the messages) the grammar allows
// before the call (a random model would write nothing but that).
// Templates llama.cpp finds no tool-call format in have no grammar and are
// left as they are.
function forceCall(opts) {
  const f = ctx.getFormattedChat(opts.messages, undefined, defined({
    jinja: true, tools: opts.tools, tool_choice: 'required',
    parallel_tool_calls: opts.parallel_tool_calls, reasoning_format: opts.reasoning_format,
  }))
  if (!f.grammar) return
  // The grammar starts with the generation prompt, which llama.cpp feeds
  // it only for its own grammars; a grammar given as an option starts
  // after it.
  const prompt = '"' + (f.generation_prompt || '').replace(/[\\"\n\r\t]/g,
    (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]) + '"'
  const lines = f.grammar.split('\n')
  // A rule that is the generation prompt alone (gpt-oss: start).
  const named = lines.find((l) => f.generation_prompt && l.endsWith(' ::= ' + prompt))?.split(' ::= ')[0]
  opts.grammar = lines.map((line) => {
    if (!line.startsWith('root ::=')) return line
    line = line.replace(/ (space )?until-\d+\??(?= (space )?tool-call)/g, '')
      .replace(/ \(start any\)\* (?=start tool-call)/g, ' ') // gpt-oss: messages of any channel first
    if (named) line = line.replace('::= ' + named + ' ', '::= ')
    return f.generation_prompt ? line.replace('::= ' + prompt, '::=') : line
  }).join('\n')
  if (process.env.LLAMATEST_DEBUG) console.error('grammar root:', JSON.stringify(opts.grammar.split('\n').filter((l) => !/^(char|json|space|until|ac-)/.test(l))))
  opts.grammar_lazy = false
  opts.tool_choice = 'required'
}

function send(res, status, obj) {
  const data = JSON.stringify(obj)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) })
  res.end(data)
}

function message(result, calls) {
  const msg = { role: 'assistant', content: result.content ?? null }
  if (result.reasoning_content) msg.reasoning_content = result.reasoning_content
  if (calls.length > 0) msg.tool_calls = calls.map(({ index, ...c }) => c)
  // A reply llama.cpp's parser could not read keeps its raw text, as
  // llama-server does; x_unparsed tells the test.
  if (!result.content && !result.reasoning_content && calls.length === 0 && result.text) {
    msg.content = result.text
    msg.x_unparsed = true
  }
  return msg
}

async function chat(req, res, body) {
  const id = 'chatcmpl-' + randomID()
  const created = Math.floor(Date.now() / 1000)
  const model = body.model || 'tiny'
  if (!body.stream) {
    const result = await serial(() => complete(body, null, null))
    const calls = toolCalls(result.tool_calls)
    send(res, 200, {
      id, object: 'chat.completion', created, model,
      choices: [{ index: 0, message: message(result, calls), finish_reason: finish(result, calls) }],
      usage: usage(result),
    })
    return
  }
  let started = false
  const chunk = (delta, finishReason = null, extra = {}) => {
    if (!started) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
      started = true
    }
    res.write(`data: ${JSON.stringify({
      id, object: 'chat.completion.chunk', created, model,
      choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finishReason }], ...extra,
    })}\n\n`)
  }
  const sent = { content: '', reasoning: '' }
  // Streams the part of a parse that extends what was sent (llama-server
  // sends common_chat_msg diffs the same way).
  const stream = (content, reasoning) => {
    const delta = {}
    if (reasoning && reasoning.startsWith(sent.reasoning) && reasoning.length > sent.reasoning.length) {
      delta.reasoning_content = reasoning.slice(sent.reasoning.length)
      sent.reasoning = reasoning
    }
    if (content && content.startsWith(sent.content) && content.length > sent.content.length) {
      delta.content = content.slice(sent.content.length)
      sent.content = content
    }
    if (Object.keys(delta).length > 0) chunk(delta)
  }
  try {
    const result = await serial(() => complete(body, () => chunk({ role: 'assistant', content: '' }),
      (t) => stream(t.content, t.reasoning_content)))
    const calls = toolCalls(result.tool_calls)
    const msg = message(result, calls)
    stream(msg.content, msg.reasoning_content)
    for (const c of calls) chunk({ tool_calls: [c] })
    chunk({}, finish(result, calls))
    if (body.stream_options?.include_usage) chunk(null, null, { usage: usage(result) })
    res.write('data: [DONE]\n\n')
    res.end()
  } catch (err) {
    if (!started) throw err
    res.write(`data: ${JSON.stringify({ error: { code: 500, message: String(err.message || err), type: 'server_error' } })}\n\n`)
    res.end()
  }
}

const server = http.createServer((req, res) => {
  const parts = [] // joined before decoding: a character may straddle two
  req.on('data', (d) => parts.push(d))
  req.on('end', async () => {
    const raw = Buffer.concat(parts).toString('utf8')
    try {
      const url = req.url.split('?')[0]
      if (req.method === 'GET' && url === '/props') {
        send(res, 200, { default_generation_settings: { n_ctx: nCtx }, chat_template: info.metadata['tokenizer.chat_template'] })
      } else if (req.method === 'GET' && (url === '/v1/models' || url === '/models')) {
        send(res, 200, { object: 'list', data: [{ id: 'tiny', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: nCtx } }] })
      } else if (req.method === 'POST' && (url === '/v1/chat/completions' || url === '/chat/completions')) {
        await chat(req, res, JSON.parse(raw))
      } else {
        send(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } })
      }
    } catch (err) {
      console.error(err.stack || err)
      const status = err.status || 500
      if (!res.headersSent) {
        send(res, status, { error: { code: status, message: String(err.message || err), type: err.type || 'server_error' } })
      } else {
        res.end()
      }
    }
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, templates: info.chatTemplates }) + '\n')
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
