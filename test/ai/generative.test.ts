// The generative engine through the whole HTTP flow, against a fake OpenAI-compatible
// chat completions server on 127.0.0.1 (SWITCHBOARD_LLM_BASE_URL): one where the model
// answers and scores, one where it fails and the conversation records the fallbacks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { converse, createFixtureAgent } from '../helpers/ai.ts';

interface FakeModel {
  url: string;
  requests: Array<{ authorization: string | undefined; body: any }>;
  fail: boolean;
  close(): Promise<void>;
}

/** Answers like a model that follows the prompt: cites the first passage it was given. */
async function startFakeModel(): Promise<FakeModel> {
  const model = { requests: [] as FakeModel['requests'], fail: false };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      model.requests.push({ authorization: req.headers.authorization, body });
      if (model.fail || req.url !== '/v1/chat/completions') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
        return;
      }
      const system: string = body.messages[0].content;
      let content: unknown;
      if (system.startsWith('You review phone calls')) {
        const part = (score: number) => ({ score, explanation: `Model says ${score}.` });
        content = { answered_from_knowledge: part(90), resolution: part(80), caller_sentiment: part(70), turns_to_resolution: part(60) };
      } else {
        const { passages } = JSON.parse(body.messages[1].content);
        content = { action: 'answer', text: `Per our records: ${passages[0].text.split('\n')[0]}`, citations: [passages[0].document_id], confidence: 0.9 };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(content) }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(model, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  });
}

let model: FakeModel;
let t: TestServer;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let docIds: Record<string, string>;

before(async () => {
  model = await startFakeModel();
  t = await startTestServer({ SWITCHBOARD_LLM_BASE_URL: model.url, SWITCHBOARD_LLM_API_KEY: 'sk-test-123', SWITCHBOARD_LLM_MODEL: 'fake-model', SWITCHBOARD_LLM_TIMEOUT_MS: '5000' });
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
  const numberId = (await t.as(acct.keys.sandbox).get('/v1/numbers')).body.data[0].id;
  ({ docIds } = await createFixtureAgent(t, acct.keys.sandbox, numberId));
});
after(async () => {
  await hooks.close();
  await t.close();
  await model.close();
});

describe('generative engine', () => {
  test('answers from retrieved passages with their citations and scores the call', async () => {
    model.fail = false;
    model.requests.length = 0;
    const { scored } = await converse(t, acct.keys.sandbox, hooks, {
      to: acct.numbers.sandbox[0]!, caller_script: ['Where are you located?', 'Can I speak to a real person please?'],
    });
    assert.equal(scored.engine, 'generative');
    assert.deepEqual(scored.fallbacks, []);
    const answer = scored.transcript[2];
    assert.equal(answer.action, 'answer');
    assert.match(answer.text, /^Per our records: /);
    assert.equal(answer.citations.length, 1);
    assert.ok(Object.values(docIds).includes(answer.citations[0]), 'cites a doc_ id of this agent');
    // Asking for a person is a rule, never a model call: it transfers whatever the model would say.
    assert.equal(scored.transcript[4].action, 'transfer');
    assert.equal(scored.outcome, 'transferred');
    assert.equal(scored.score.engine, 'generative');
    assert.equal(scored.score.parts.resolution.explanation, 'Model says 80.');
    assert.ok(scored.score.overall > 0 && scored.score.overall <= 100);

    assert.equal(model.requests.length, 2, 'one reply and one score request');
    for (const r of model.requests) {
      assert.equal(r.authorization, 'Bearer sk-test-123');
      assert.equal(r.body.model, 'fake-model');
    }
    const passages = JSON.parse(model.requests[0]!.body.messages[1].content).passages;
    assert.ok(passages.length > 0 && passages.every((p: any) => Object.values(docIds).includes(p.document_id)), 'the model sees only this agent\'s passages');
  });

  test('when the model fails, the default engine answers and the conversation says so', async () => {
    model.fail = true;
    try {
      const { scored } = await converse(t, acct.keys.sandbox, hooks, {
        to: acct.numbers.sandbox[0]!, caller_script: ['What are your hours on Wednesday?', 'Thanks, bye!'],
      });
      assert.equal(scored.engine, 'generative');
      const answer = scored.transcript[2];
      assert.equal(answer.action, 'answer');
      assert.match(answer.text, /10:00 a\.m\. to 7:00 p\.m\./, 'the default engine\'s extractive answer');
      assert.deepEqual(answer.citations, [docIds.hours]);
      assert.deepEqual(scored.fallbacks, [{ turn: 2, reason: 'model endpoint answered HTTP 500' }]);
      assert.equal(scored.outcome, 'resolved');
      assert.equal(scored.score.engine, 'default');
      assert.equal(scored.score.fallback_reason, 'model endpoint answered HTTP 500');
    } finally {
      model.fail = false;
    }
  });
});
