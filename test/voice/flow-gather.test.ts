// The gather verb through HTTP: keypresses and speech from the sandbox's far end (POST
// /v1/sandbox/calls/{id}/press and /say), num_digits, finish_on_key, timeout, barge-in over
// nested prompts, call.gather.completed on a real receiver, and the flow going on after it.
// The simulator runs in real time and each test moves the account's test clock (POST
// /v1/sandbox/clock/advance) past the steps it waits for, so what the far end does lands
// inside the verb whatever the machine's load: a gather's timeout is 30 s of real time away,
// not the 3 s a tenth-speed simulator left (under load the call had ended before the key press).
// issue 12: the gather verb (dtmf, speech in the sandbox, barge-in, timeouts) and POST /v1/sandbox/calls/{id}/press and /say.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { MAGIC, waitForTypes } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf, waitForFlow, waitForFlowEvent, waitForRunning } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let from: string;
const api = () => t.as(acct.keys.sandbox);
const SCALE = 1;

/** Moves the account's test clock `seconds` of simulated time on; every job that fell due has run when it answers. */
async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds: seconds * SCALE });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

before(async () => {
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: String(SCALE) });
  acct = await t.createAccount('scale');
  from = acct.numbers.sandbox[0]!;
  receiver = await subscribeAll(t, acct.keys.sandbox);
});
after(async () => {
  await receiver.close();
  await t.close();
});

const MENU = 'Press one for sales, two for support.'; // 7 words: 7/3 + 0.4 s

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1); // it rings 1 s, then answers
  return res.body.id;
}

describe('gather', () => {
  test('digits pressed after the prompt: num_digits ends it, call.gather.completed says what, the flow goes on', async () => {
    const id = await place([
      { gather: { num_digits: 1, timeout: 30, prompts: [{ say: { text: MENU } }] } },
      { say: { text: 'Connecting you.' } },
    ]);
    await waitForRunning(api(), id, 0);
    // Move past the prompt (the log cannot show its end); the 30 s timeout is still far off.
    await advance(7 / 3 + 0.4 + 0.1);
    const pressed = await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '2' });
    assert.equal(pressed.status, 200, JSON.stringify(pressed.body));
    assert.equal(pressed.body.id, id);
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual(event!.data.object, { object: 'call_gather', call_id: id, index: 0, digits: '2', speech: null, confidence: null, reason: 'num_digits' });
    await waitForRunning(api(), id, 1);
    await advance(2 / 3 + 0.4 + 0.1); // 'Connecting you.' is said, then the flow ends
    await receiver.waitForEvent('call.completed', id);
    // The gather's event is on the call's own sequence, between answer and completion.
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.type), ['call.queued', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.completed']);
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.sequence), [1, 2, 3, 4, 5]);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result]), [
      ['gather', { digits: '2', speech: null, confidence: null, reason: 'num_digits' }],
      ['say', { reason: 'finished' }],
    ]);
    assert.deepEqual(flow.flow[0].gather, {
      num_digits: 1, timeout: 30, prompts: [{ say: { text: MENU, loop: 1 } }],
      input: ['dtmf'], finish_on_key: '#', speech_timeout: 2, hints: [], barge_in: true,
    }, 'defaults are filled in');
  });

  test('barge-in: a key during the prompts cuts them; the finish key ends the input and is not a digit', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const id = await place([{ gather: { timeout: 30, prompts: [{ say: { text: long, loop: 10 } }, { say: { text: MENU } }] } }]);
    const running = await waitForRunning(api(), id, 0);
    const started = Date.parse(running.log[0].started_at);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '12#' })).status, 200);
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.equal(event!.data.object.digits, '12');
    assert.equal(event!.data.object.reason, 'finish_key');
    const flow = await waitForFlow(api(), id, (f) => f.log[0]?.ended_at !== null);
    const tookSimulated = (Date.parse(flow.log[0].ended_at) - started) / 1000 / SCALE;
    assert.ok(tookSimulated < 10 * (30 / 3 + 0.4), `the prompts (${10 * (30 / 3 + 0.4)} s) were cut: the gather took ${tookSimulated} s`);
  });

  test('without barge_in, keys during the prompts are not heard', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const id = await place([{ gather: { timeout: 1, barge_in: false, prompts: [{ say: { text: long } }] } }]);
    await waitForRunning(api(), id, 0);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '5#' })).status, 200);
    await advance(30 / 3 + 0.4 + 1 + 0.1); // the prompt, then the 1 s timeout
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual([event!.data.object.digits, event!.data.object.reason], ['', 'timeout']);
  });

  test('timeout: nothing pressed ends the gather with no digits; digits then silence end it with them', async () => {
    const id = await place([{ gather: { timeout: 2 } }, { gather: { timeout: 20 } }]);
    await waitForRunning(api(), id, 0);
    await advance(2 + 0.1);
    const [first] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual([first!.data.object.index, first!.data.object.digits, first!.data.object.reason], [0, '', 'timeout']);
    await waitForRunning(api(), id, 1);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '4' })).status, 200);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '2' })).status, 200);
    await advance(20 + 0.1);
    const events = await waitForFlowEvent(receiver, id, 'call.gather.completed', 2);
    assert.deepEqual([events[1]!.data.object.index, events[1]!.data.object.digits, events[1]!.data.object.reason], [1, '42', 'timeout']);
  });

  test('speech: the sandbox hears the exact words; the utterance ends speech_timeout after them', async () => {
    const id = await place([{ gather: { input: ['speech', 'dtmf'], timeout: 30, speech_timeout: 1, hints: ['billing', 'sales'], prompts: [{ say: { text: 'How can I help?' } }] } }]);
    await waitForRunning(api(), id, 0);
    const said = await api().post(`/v1/sandbox/calls/${id}/say`, { text: 'billing   please' });
    assert.equal(said.status, 200, JSON.stringify(said.body));
    await advance(3); // the two words, then the 1 s speech_timeout
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual(event!.data.object, { object: 'call_gather', call_id: id, index: 0, digits: '', speech: 'billing please', confidence: 1, reason: 'speech' });
  });

  test('a dtmf-only gather does not hear speech', async () => {
    const id = await place([{ gather: { timeout: 1 } }]);
    await waitForRunning(api(), id, 0);
    await api().post(`/v1/sandbox/calls/${id}/say`, { text: 'hello' });
    await advance(1 + 0.1);
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual([event!.data.object.speech, event!.data.object.reason], [null, 'timeout']);
  });

  test('the far end acts only on sandbox calls in progress, with valid input', async () => {
    const busy = (await api().post('/v1/calls', { from, to: MAGIC.busy })).body.id;
    await waitForTypes(receiver, busy, ['call.queued', 'call.busy', 'call.completed']);
    const ended = await api().post(`/v1/sandbox/calls/${busy}/press`, { digits: '1' });
    assert.equal(ended.status, 409);
    assert.equal(ended.body.code, 'call_not_in_progress');
    const bad = await api().post(`/v1/sandbox/calls/${busy}/press`, { digits: '1x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'digits');
    const live = await t.as(acct.keys.live).post(`/v1/sandbox/calls/${busy}/say`, { text: 'hi' });
    assert.equal(live.status, 403);
    assert.equal(live.body.code, 'mode_not_supported');
    const missing = await api().post('/v1/sandbox/calls/call_01jdzzzzzzzzzzzzzzzzzzzzzz/press', { digits: '1' });
    assert.equal(missing.status, 404);
  });

  test('an invalid gather is refused with the JSON path of each error', async () => {
    const res = await api().post('/v1/calls', {
      from, to: MAGIC.staysUp,
      flow: [{ gather: { finish_on_key: 'x', num_digits: 0, input: ['video'], prompts: [{ hangup: {} }], hints: [''] } }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    const fields = res.body.errors.map((e: any) => e.field);
    for (const f of ['flow[0].gather.finish_on_key', 'flow[0].gather.num_digits', 'flow[0].gather.input[0]', 'flow[0].gather.prompts[0]', 'flow[0].gather.hints[0]']) {
      assert.ok(fields.includes(f), `${f} in ${JSON.stringify(fields)}`);
    }
  });
});
