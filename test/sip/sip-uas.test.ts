// Our user agent answering SIPp as the caller: SIPp's RFC 2833 captures become digits,
// SIPp's BYE ends the dialog; out-of-dialog OPTIONS are answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SipTransport } from '../../src/carriers/sip/transport.ts';
import { UserAgent } from '../../src/carriers/sip/user-agent.ts';
import { buildSdp, negotiate, parseSdp } from '../../src/carriers/sip/sdp.ts';
import { MediaEngine } from '../../src/carriers/rtp/engine.ts';
import { peerAvailable, runSipp } from '../helpers/sipp.ts';

const hasSipp = peerAvailable('sipp');
let transport: SipTransport;
let ua: UserAgent;
let engine: MediaEngine;

before(async () => {
  transport = new SipTransport({ host: '127.0.0.1', udpPort: 0 });
  await transport.start();
  ua = new UserAgent({ transport, publicHost: '127.0.0.1', timers: { t1: 100, t2: 400, linger: 2000 } });
  engine = new MediaEngine({ host: '127.0.0.1', range: { min: 44000, max: 44998 } });
});

after(async () => {
  ua.shutdown();
  await transport.stop();
  await engine.shutdown();
});

test('SIPp calls in: we ring, answer, hear its RFC 2833 digits 4, 2, #, and its BYE ends the dialog', { skip: !hasSipp }, async () => {
  const digits: string[] = [];
  const ended = new Promise<{ requestUri: string; from: string | undefined }>((resolve) => {
    ua.once('invite', async (incoming) => {
      ua.progress(incoming, 180, 'Ringing');
      const port = await engine.open('in');
      engine.events.on('digit:in', (event: { digit: string }) => digits.push(event.digit));
      const media = negotiate(parseSdp(incoming.request.body), ['PCMU', 'PCMA']);
      await engine.setRemote('in', media);
      const dialog = ua.answer(incoming, buildSdp({ address: '127.0.0.1', port, codecs: [media.codec], dtmfPayloadType: media.dtmfPayloadType ?? 101, sessionId: 7, version: 1 }));
      dialog.once('bye', async () => {
        await engine.close('in');
        resolve({ requestUri: incoming.request.uri, from: incoming.request.headers.get('from') });
      });
    });
  });
  const sipp = await runSipp({ scenario: 'uac-dtmf.xml', remote: `127.0.0.1:${transport.udpPort}`, args: ['-s', '+15550001111'] });
  const call = await ended;
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
  assert.match(call.requestUri, /^sip:\+15550001111@127\.0\.0\.1/);
  assert.match(call.from ?? '', /\+15557770000/);
  assert.deepEqual(digits, ['4', '2', '#']);
  assert.equal(ua.dialogCount, 0);
});

test('an OPTIONS probe outside any dialog gets 200 with what we allow', async () => {
  const probe = new SipTransport({ host: '127.0.0.1', udpPort: 0 });
  await probe.start();
  const prober = new UserAgent({ transport: probe, publicHost: '127.0.0.1', timers: { t1: 100, t2: 400, linger: 500 } });
  try {
    const response = await prober.options(`sip:127.0.0.1:${transport.udpPort}`, { transport: 'UDP', address: '127.0.0.1', port: transport.udpPort });
    assert.equal(response.status, 200);
    assert.match(response.headers.getAll('allow').join(', '), /INVITE.*BYE.*OPTIONS/);
  } finally {
    prober.shutdown();
    await probe.stop();
  }
});
