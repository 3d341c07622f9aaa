// Workers reached at a SIP URI, through HTTP (issue 26): in live mode the URI is dialled from
// the server, so its host must be a public address unless the operator allows private ones
// (the webhook URL policy; this server does not), and a URI the stack cannot dial is refused;
// in the sandbox such a worker is offered callers and answers like an ordinary number.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false' });
const api = () => sandbox.api();
const live = () => sandbox.server.as(sandbox.account.keys.live);

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

function refused(res: { status: number; body: any }, why: RegExp): void {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.code, 'reach_not_allowed');
  assert.equal(res.body.errors[0].field, 'reach');
  assert.match(res.body.detail, why);
}

describe('a live worker reached at a SIP URI', () => {
  test('private, loopback and unresolvable hosts and unknown transports are refused on create and on change', async () => {
    refused(await live().post('/v1/workers', { name: 'Loopback', reach: 'sip:agent@127.0.0.1:5070' }), /127\.0\.0\.1 is not a public address/);
    refused(await live().post('/v1/workers', { name: 'Private', reach: 'sips:agent@10.1.2.3' }), /10\.1\.2\.3 is not a public address/);
    refused(await live().post('/v1/workers', { name: 'Mapped', reach: 'sip:agent@[::ffff:192.168.0.1]' }), /not a public address/);
    refused(await live().post('/v1/workers', { name: 'By name', reach: 'sip:agent@localhost' }), /localhost resolves to .* not a public address/);
    refused(await live().post('/v1/workers', { name: 'Nowhere', reach: 'sip:agent@no-such-host.invalid' }), /does not resolve/);
    refused(await live().post('/v1/workers', { name: 'Carrier pigeon', reach: 'sip:agent@203.0.113.7;transport=sctp' }), /transport sctp/);
    refused(await live().post('/v1/workers', { name: 'Bad port', reach: 'sip:agent@203.0.113.7:99999' }), /not a SIP URI Switchboard can dial/);
    assert.equal((await live().get('/v1/workers')).body.data.length, 0, 'nothing refused was created');

    const worker = ok(await live().post('/v1/workers', { name: 'Public', reach: 'sip:agent@9.9.9.9:5062;transport=tcp' }));
    assert.equal(worker.reach, 'sip:agent@9.9.9.9:5062;transport=tcp');
    refused(await live().patch(`/v1/workers/${worker.id}`, { reach: 'sip:agent@192.168.1.20' }), /192\.168\.1\.20/);
    assert.equal(ok(await live().get(`/v1/workers/${worker.id}`)).reach, 'sip:agent@9.9.9.9:5062;transport=tcp', 'a refused change changes nothing');
    assert.equal(ok(await live().patch(`/v1/workers/${worker.id}`, { reach: 'sips:agent@1.1.1.1' })).reach, 'sips:agent@1.1.1.1');
  });

  test('the sandbox dials nothing: any well-formed SIP URI is accepted', async () => {
    const worker = ok(await api().post('/v1/workers', { name: 'Sandbox', reach: 'sip:agent@127.0.0.1:5070' }));
    assert.equal(worker.reach, 'sip:agent@127.0.0.1:5070');
  });
});

describe('a sandbox worker reached at a SIP URI', () => {
  test('is offered a waiting caller, rings about a second, answers and is connected', async () => {
    ok(await api().post('/v1/queues', { name: 'uri-routed', wait_flow: [{ pause: { seconds: 30 } }], routing: { required_skills: ['uri'] } }));
    const worker = ok(await api().post('/v1/workers', { name: 'Desk phone', skills: ['uri'], reach: 'sip:desk@pbx.example.com', status: 'available' }));
    const caller = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'uri-routed' } }, { hangup: {} }] }));

    const [left] = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'bridged');
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, worker.id).some((e) => e.type === 'worker.connected'));
    const events = eventsOf(sandbox.receiver, worker.id);
    assert.deepEqual(events.slice(0, 3).map((e) => e.type), ['worker.offered', 'worker.status_changed', 'worker.connected']);
    const leg = ok(await api().get(`/v1/calls/${events[0]!.data.object.offer.call_id}`));
    assert.equal(leg.to, 'sip:desk@pbx.example.com');
    assert.equal(leg.from, sandbox.from, 'the worker sees the number the caller called');
    await sandbox.receiver.waitForEvent('call.answered', leg.id);
    // Like an ordinary number it talks a while and hangs up, which ends the caller's call too.
    await sandbox.receiver.waitForEvent('call.completed', leg.id);
    const ended = ok(await api().get(`/v1/calls/${leg.id}`));
    assert.deepEqual([ended.status, ended.hangup_source], ['completed', 'callee']);
    await sandbox.receiver.waitForEvent('call.completed', caller.id);
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, worker.id).some((e) => e.type === 'worker.status_changed' && e.data.object.status === 'wrap_up'));
  });
});
