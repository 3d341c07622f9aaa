// A SIP URI dialled directly (uri-target.ts): the Request-URI and the hop it names, its
// transport by parameter or scheme, the TLS name a hostname's certificate must carry, and
// the dial-time refusal of a private address unless the operator allows private targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSipUriTarget, sipUriInvite } from '../../src/carriers/sip/uri-target.ts';

const invite = (to: string, allowPrivate = false) => sipUriInvite(to, 'sb.example.com', '+14155550100', 'v=0', allowPrivate);

test('only sip: and sips: targets are dialled directly', () => {
  for (const to of ['sip:a@9.9.9.9', 'sips:a@9.9.9.9', 'SIP:a@9.9.9.9']) assert.equal(isSipUriTarget(to), true, to);
  for (const to of ['+14155550100', 'softphone:acme.alice']) assert.equal(isSipUriTarget(to), false, to);
});

test('the hop is the URI host, its port or the transport default, its transport or TLS for sips', async () => {
  const udp = await invite('sip:agent@9.9.9.9');
  assert.ok('uri' in udp);
  assert.deepEqual([udp.uri, udp.to, udp.peer], ['sip:agent@9.9.9.9', 'sip:agent@9.9.9.9', { transport: 'UDP', address: '9.9.9.9', port: 5060, serverName: undefined }]);
  assert.deepEqual(udp.from, { user: '+14155550100', host: 'sb.example.com' });
  const tcp = await invite('sip:agent@9.9.9.9:5070;transport=tcp');
  assert.ok('uri' in tcp);
  assert.deepEqual([tcp.uri, tcp.to, tcp.peer], ['sip:agent@9.9.9.9:5070;transport=tcp', 'sip:agent@9.9.9.9:5070', { transport: 'TCP', address: '9.9.9.9', port: 5070, serverName: undefined }]);
  const tls = await invite('sips:agent@[2606:4700::1111]');
  assert.ok('uri' in tls);
  assert.deepEqual(tls.peer, { transport: 'TLS', address: '2606:4700::1111', port: 5061, serverName: undefined });
  const named = await invite('sips:agent@localhost', true);
  assert.ok('uri' in named);
  assert.equal(named.peer.serverName, 'localhost', 'a TLS certificate names the host, not its address');
  assert.match(named.peer.address, /^(127\.0\.0\.1|::1)$/);
});

test('a private or loopback host is refused unless private targets are allowed', async () => {
  assert.deepEqual(await invite('sip:agent@192.168.1.20'), { status: 403, reason: 'Forbidden (192.168.1.20 is not a public address)' });
  assert.deepEqual(await invite('sip:agent@localhost'), { status: 403, reason: 'Forbidden (localhost is not a public address)' });
  assert.ok('uri' in await invite('sip:agent@192.168.1.20', true));
  assert.deepEqual(await invite('sip:agent@no-such-host.invalid'), { status: 404, reason: 'Not Found (no-such-host.invalid does not resolve)' });
});
