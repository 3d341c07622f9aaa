import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunkDocument } from '../../src/modules/ai/engine/chunking.ts';
import { KnowledgeIndex } from '../../src/modules/ai/engine/retrieval.ts';
import { GenerativeEngine } from '../../src/modules/ai/engine/generative-engine.ts';
import type { AgentProfile, TranscriptTurn } from '../../src/modules/ai/engine/types.ts';
import { until } from '../helpers/until.ts';

// A fake OpenAI-compatible server on 127.0.0.1. Each test sets `respond` to
// decide what the next completion looks like; requests are recorded.
type Responder = (body: ChatRequest, res: ServerResponse) => void;
interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
}
interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: ChatRequest;
}

let server: Server;
let baseUrl: string;
let respond: Responder;
let requests: RecordedRequest[] = [];

function completion(res: ServerResponse, content: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
}

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as ChatRequest;
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      respond(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  respond = (_body, res) => completion(res, '{}');
});

const AGENT: AgentProfile = {
  name: 'Spoke & Chain Bikes',
  greeting: 'Thanks for calling!',
  instructions: 'Keep it short.',
  language: 'en',
  transferNumber: '+15550100',
  businessHours: null,
  afterHoursMessage: null,
};

function index(): KnowledgeIndex {
  const idx = new KnowledgeIndex();
  idx.add(
    chunkDocument({
      documentId: 'prices',
      title: 'Prices',
      contentType: 'text/markdown',
      content: '## Repairs\nA basic tune-up is $79. A full overhaul is $189.\n## Hours\nOpen Tuesday to Saturday, 10 a.m. to 6 p.m.',
    }),
  );
  return idx;
}

function engine(timeoutMs = 2000): GenerativeEngine {
  return new GenerativeEngine({ baseUrl, apiKey: 'test-key', model: 'tiny-model', timeoutMs });
}

const QUESTION = 'how much is a tune-up?';

test('a good model answer is used and its citations kept', async () => {
  respond = (_body, res) =>
    completion(res, JSON.stringify({ action: 'answer', text: 'A basic tune-up is $79.', citations: ['prices', 'made-up-doc'], confidence: 0.9 }));
  const reply = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
  assert.equal(reply.engine, 'generative');
  assert.equal(reply.action, 'answer');
  assert.equal(reply.text, 'A basic tune-up is $79.');
  assert.deepEqual(reply.citations, ['prices'], 'citations outside the retrieved passages are dropped');
  assert.equal(reply.confidence, 0.9);
  assert.equal(reply.fallback_reason, undefined);

  assert.equal(requests.length, 1);
  const [request] = requests;
  assert.equal(request!.method, 'POST');
  assert.equal(request!.url, '/v1/chat/completions');
  assert.equal(request!.authorization, 'Bearer test-key');
  assert.equal(request!.body.model, 'tiny-model');
  assert.deepEqual(request!.body.response_format, { type: 'json_object' });
  const system = request!.body.messages.find((m) => m.role === 'system')!.content;
  const user = request!.body.messages.find((m) => m.role === 'user')!.content;
  assert.match(system, /ONLY from the knowledge passages/);
  assert.match(user, /basic tune-up is \$79/, 'retrieved passages are sent to the model');
  assert.match(user, /how much is a tune-up/);
});

test('a timeout falls back to the default engine', async () => {
  // The model answers only after 30 s: an engine that waited for it would answer 'late' from
  // the model (and this test would run into its timeout). No duration is asserted: a loaded
  // machine stretches them; what the engine answered says whether it waited.
  let abandoned = false;
  respond = (_body, res) => {
    const timer = setTimeout(() => completion(res, JSON.stringify({ action: 'answer', text: 'late', citations: ['prices'] })), 30_000);
    res.on('close', () => { abandoned = true; clearTimeout(timer); });
  };
  const reply = await engine(150).reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
  assert.equal(reply.engine, 'default', 'did not wait for the slow model');
  await until('the engine hung up on the model', () => abandoned);
  assert.match(reply.fallback_reason ?? '', /timed out after 150 ms/);
  assert.equal(reply.action, 'answer');
  assert.match(reply.text, /\$79/);
  assert.deepEqual(reply.citations, ['prices']);
});

test('an HTTP 500 falls back to the default engine', async () => {
  respond = (_body, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'boom' } }));
  };
  const reply = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
  assert.equal(reply.engine, 'default');
  assert.match(reply.fallback_reason ?? '', /HTTP 500/);
  assert.equal(reply.action, 'answer');
});

test('invalid JSON from the model falls back to the default engine', async () => {
  respond = (_body, res) => completion(res, 'Sure! A tune-up is $79.');
  const reply = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
  assert.equal(reply.engine, 'default');
  assert.match(reply.fallback_reason ?? '', /not valid JSON/);
  assert.match(reply.text, /\$79/);
});

test('well-formed JSON that breaks the contract also falls back', async () => {
  const cases: [unknown, RegExp][] = [
    [{ action: 'answer', text: 'A tune-up is $79.', citations: [] }, /without citing/],
    [{ action: 'answer', text: 'A tune-up is $79.', citations: ['somewhere-else'] }, /without citing/],
    [{ action: 'dance', text: 'hi' }, /invalid action/],
    [{ action: 'answer', text: '', citations: ['prices'] }, /no text/],
    [['not', 'an', 'object'], /not a JSON object/],
  ];
  for (const [content, reason] of cases) {
    respond = (_body, res) => completion(res, JSON.stringify(content));
    const reply = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
    assert.equal(reply.engine, 'default', JSON.stringify(content));
    assert.match(reply.fallback_reason ?? '', reason);
  }
  // A body that is not a chat completion at all.
  respond = (_body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"unexpected": true}');
  };
  const reply = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: QUESTION });
  assert.match(reply.fallback_reason ?? '', /no message content/);
});

test('an unreachable endpoint falls back', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const reply = await new GenerativeEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' }).reply({
    agent: AGENT,
    index: index(),
    history: [],
    utterance: QUESTION,
  });
  assert.equal(reply.engine, 'default');
  assert.match(reply.fallback_reason ?? '', /request failed/);
});

test('transfer requests and message taking never reach the model', async () => {
  respond = (_body, res) => completion(res, JSON.stringify({ action: 'answer', text: 'No need, I can help!', citations: ['prices'] }));
  const gen = engine();
  const transfer = await gen.reply({ agent: AGENT, index: index(), history: [], utterance: 'let me talk to a real person' });
  assert.equal(transfer.action, 'transfer');
  assert.equal(transfer.rule, 'transfer_requested');

  const ask = await gen.reply({ agent: AGENT, index: index(), history: [], utterance: 'can I leave a message?' });
  assert.equal(ask.action, 'clarify');
  const history: TranscriptTurn[] = [
    { speaker: 'caller', text: 'can I leave a message?', at: 1, citations: [], action: null },
    { speaker: 'agent', text: ask.text, at: 2, citations: [], action: ask.action },
  ];
  const taken = await gen.reply({ agent: AGENT, index: index(), history, utterance: 'Tell Sam the wheel is ready.' });
  assert.equal(taken.action, 'message');
  assert.equal(taken.message, 'Tell Sam the wheel is ready.');
  assert.equal(requests.length, 0, 'the model was not called');
});

test('the model deciding to hand off still follows the transfer rules', async () => {
  respond = (_body, res) => completion(res, JSON.stringify({ action: 'transfer', text: 'Let me get someone.', citations: [] }));
  const withNumber = await engine().reply({ agent: AGENT, index: index(), history: [], utterance: 'can you true a carbon wheel for the tune-up?' });
  assert.equal(withNumber.engine, 'generative');
  assert.equal(withNumber.action, 'transfer');
  const withoutNumber = await engine().reply({
    agent: { ...AGENT, transferNumber: null },
    index: index(),
    history: [],
    utterance: 'can you true a carbon wheel for the tune-up?',
  });
  assert.equal(withoutNumber.action, 'clarify', 'no one to transfer to: offer a message instead');
  assert.match(withoutNumber.text, /message/);
});

const TRANSCRIPT: TranscriptTurn[] = [
  { speaker: 'caller', text: 'how much is a tune-up?', at: 1, citations: [], action: null },
  { speaker: 'agent', text: 'A basic tune-up is $79.', at: 2, citations: ['prices'], action: 'answer' },
  { speaker: 'caller', text: 'great, thanks, bye', at: 3, citations: [], action: null },
];

test('scoring uses the model when its output is valid', async () => {
  const part = (score: number) => ({ score, explanation: `scored ${score}` });
  respond = (_body, res) =>
    completion(
      res,
      JSON.stringify({ answered_from_knowledge: part(90), resolution: part(100), caller_sentiment: part(80.4), turns_to_resolution: part(100) }),
    );
  const score = await engine().score({ transcript: TRANSCRIPT, outcome: 'resolved' });
  assert.equal(score.engine, 'generative');
  assert.equal(score.fallback_reason, undefined);
  assert.equal(score.parts.caller_sentiment.score, 80);
  assert.equal(score.parts.answered_from_knowledge.explanation, 'scored 90');
  assert.equal(score.parts.resolution.weight, 0.35);
  assert.equal(score.overall, Math.round(0.35 * 90 + 0.35 * 100 + 0.15 * 80 + 0.15 * 100));
});

test('scoring falls back to the rule-based score on bad model output', async () => {
  respond = (_body, res) => completion(res, JSON.stringify({ answered_from_knowledge: { score: 140 } }));
  const score = await engine().score({ transcript: TRANSCRIPT, outcome: 'resolved' });
  assert.equal(score.engine, 'default');
  assert.match(score.fallback_reason ?? '', /answered_from_knowledge/);
  assert.ok(score.overall >= 90);
});
