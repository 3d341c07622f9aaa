// Knowledge documents through HTTP: push (chunked, indexed, ai.knowledge.ready), list, get,
// delete; rejection of bad or oversized documents with nothing stored; answers that stop
// citing a deleted document; and the retrieval index rebuilt from stored chunks after a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../src/main.ts';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { converse, createFixtureAgent, fixtureDocuments } from '../helpers/ai.ts';

let t: TestServer;
let acct: CreatedAccount;
let hooks: WebhookReceiver;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
});
after(async () => {
  await hooks.close();
  await t.close();
});

describe('knowledge documents', () => {
  test('a push answers doc_ ids, ready, with chunk counts; list, get and events agree', async () => {
    const api = t.as(acct.keys.sandbox);
    const agent = (await api.post('/v1/ai/agents', { name: 'Docs Co' })).body;
    const docs = fixtureDocuments().map(({ key: _key, ...d }) => d);
    const pushed = await api.post(`/v1/ai/agents/${agent.id}/knowledge`, { documents: [...docs.slice(0, 2), { ...docs[2], source_url: 'https://example.com/services' }] });
    assert.equal(pushed.status, 200);
    assert.equal(pushed.body.data.length, 3);
    for (const [i, doc] of pushed.body.data.entries()) {
      assert.match(doc.id, /^doc_/);
      assert.equal(doc.object, 'ai_knowledge_document');
      assert.equal(doc.agent_id, agent.id);
      assert.equal(doc.title, docs[i]!.title);
      assert.equal(doc.content_type, docs[i]!.content_type);
      assert.equal(doc.status, 'ready');
      assert.ok(doc.chunk_count > 0);
      assert.equal(doc.size_bytes, Buffer.byteLength(docs[i]!.content));
      const ready = await hooks.waitForEvent('ai.knowledge.ready', doc.id);
      assert.deepEqual(ready.data.object, doc);
    }
    assert.equal(pushed.body.data[2].source_url, 'https://example.com/services');
    const listed = await api.get(`/v1/ai/agents/${agent.id}/knowledge?limit=2`);
    assert.deepEqual(listed.body.data.map((d: any) => d.id), [pushed.body.data[2].id, pushed.body.data[1].id]);
    assert.equal(listed.body.has_more, true);
    const rest = await api.get(`/v1/ai/agents/${agent.id}/knowledge?limit=2&starting_after=${listed.body.next_cursor}`);
    assert.deepEqual(rest.body.data.map((d: any) => d.id), [pushed.body.data[0].id]);
    assert.deepEqual((await api.get(`/v1/ai/agents/${agent.id}/knowledge/${pushed.body.data[0].id}`)).body, pushed.body.data[0]);
    const totals = (await api.get(`/v1/ai/agents/${agent.id}`)).body.knowledge;
    assert.deepEqual(totals, { documents: 3, chunks: pushed.body.data.reduce((n: number, d: any) => n + d.chunk_count, 0) });
  });

  test('bad or oversized documents are rejected by name and nothing is stored', async () => {
    const api = t.as(acct.keys.sandbox);
    const agent = (await api.post('/v1/ai/agents', { name: 'Strict Co' })).body;
    const good = { title: 'Hours', content: 'We are open 9 to 5.', content_type: 'text/plain' };
    const cases: Array<[any, string, RegExp]> = [
      [{ title: 'Prices', content: 'x '.repeat(110_000), content_type: 'text/plain' }, 'documents[1].content', /at most 204800 bytes/],
      [{ title: 'Brochure', content: '%PDF-1.7', content_type: 'application/pdf' }, 'documents[1].content_type', /not supported/],
      [{ title: 'Empty page', content: '<html><script>x()</script></html>', content_type: 'text/html' }, 'documents[1].content', /no text/],
      [{ title: 'Linked', content: 'Hi.', content_type: 'text/plain', source_url: 'ftp://example.com/a' }, 'documents[1].source_url', /http/],
    ];
    for (const [bad, field, message] of cases) {
      const res = await api.post(`/v1/ai/agents/${agent.id}/knowledge`, { documents: [good, bad] });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'document_rejected');
      assert.equal(res.body.document_index, 1);
      assert.equal(res.body.document_title, bad.title);
      assert.match(res.body.detail, new RegExp(`documents\\[1\\] "${bad.title}"`));
      assert.equal(res.body.errors[0].field, field);
      assert.match(res.body.errors[0].message, message);
    }
    assert.deepEqual((await api.get(`/v1/ai/agents/${agent.id}/knowledge`)).body.data, []);
    assert.deepEqual((await api.get(`/v1/ai/agents/${agent.id}`)).body.knowledge, { documents: 0, chunks: 0 });
    const tooMany = await api.post(`/v1/ai/agents/${agent.id}/knowledge`, { documents: Array.from({ length: 21 }, () => good) });
    assert.equal(tooMany.status, 400);
    const unknownAgent = await api.post('/v1/ai/agents/agent_01jd8x0v6kf5b9w3t2q1r0p9n8/knowledge', { documents: [good] });
    assert.equal(unknownAgent.status, 404);
  });

  test('deleting a document takes it out of answers at the next call; the index survives a restart', async () => {
    const api = t.as(acct.keys.sandbox);
    const [pick] = (await api.get('/v1/numbers/available?area_code=503&limit=1')).body.data;
    const number = (await api.post('/v1/numbers', { phone_number: pick.phone_number })).body;
    const { agent, docIds } = await createFixtureAgent(t, acct.keys.sandbox, number.id);
    const question = 'How much does teeth whitening cost?';

    const before = await converse(t, acct.keys.sandbox, hooks, { to: number.phone_number, caller_script: [question] });
    assert.equal(before.scored.transcript[2].action, 'answer');
    assert.ok(before.scored.transcript[2].citations.includes(docIds.services));

    const removed = await api.delete(`/v1/ai/agents/${agent.id}/knowledge/${docIds.services}`);
    assert.equal(removed.status, 200);
    assert.equal((await api.get(`/v1/ai/agents/${agent.id}/knowledge/${docIds.services}`)).status, 404);
    const afterDelete = await converse(t, acct.keys.sandbox, hooks, { to: number.phone_number, caller_script: [question] });
    assert.ok(!afterDelete.scored.transcript.some((turn: any) => turn.citations.includes(docIds.services)), 'the deleted document is never cited');

    // A new process over the same store answers from the chunks it stored, not from memory.
    await t.server.close();
    const restarted = await startServer(t.config, { logger: false });
    try {
      const res = await fetch(`${restarted.url}/v1/sandbox/inbound_calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.keys.sandbox}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: '+14155550199', to: number.phone_number, caller_script: ['Where are you located?'] }),
      });
      assert.equal(res.status, 200);
      const conv = (await res.json()) as { id: string };
      const scored = (await hooks.waitForEvent('ai.conversation.scored', conv.id, 20_000)).data.object;
      assert.equal(scored.transcript[2].action, 'answer');
      assert.match(scored.transcript[2].text, /1420 SE Maple Street/);
      assert.ok(scored.transcript[2].citations.includes(docIds.about) || scored.transcript[2].citations.includes(docIds.faq));
    } finally {
      await restarted.close();
    }
  });
});
