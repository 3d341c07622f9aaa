// Where a call to a registered softphone goes (softphone-target.ts): its Contact, unless the
// Contact is a private or loopback address its REGISTER did not come from (NAT), the binding
// is over TCP or TLS (back on its connection), or the registrar is set to `nat: always`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPrivateAddress, softphoneInvite, softphonePeer } from '../../src/carriers/sip/softphone-target.ts';
import type { SoftphoneBinding } from '../../src/carriers/softphones.ts';

function binding(contact: string, over: Partial<SoftphoneBinding> = {}): SoftphoneBinding {
  return {
    contact, receivedAddress: '203.0.113.7', receivedPort: 40312, transport: 'UDP', callId: 'c', cseq: 1,
    expiresAt: '2026-11-26T19:00:00.000Z', userAgent: null, updatedAt: '2026-11-26T18:00:00.000Z', ...over,
  };
}

test('private, shared, link-local and loopback addresses; public ones and names are not', () => {
  for (const ip of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.20', '127.0.0.3', '100.64.0.1', '169.254.1.1', '::1', 'fd00::1', 'fe80::1']) {
    assert.equal(isPrivateAddress(ip), true, ip);
  }
  for (const host of ['203.0.113.7', '172.32.0.1', '8.8.8.8', '2001:db8::1', 'pbx.example.com']) assert.equal(isPrivateAddress(host), false, host);
});

test('a private Contact behind NAT is reached at the REGISTER\'s source', () => {
  assert.deepEqual(softphonePeer(binding('sip:alice@192.168.1.20:5062'), 'auto'), { transport: 'UDP', address: '203.0.113.7', port: 40312, accepted: false });
});

test('a public Contact, or a private one the REGISTER came from, is reached at the Contact', () => {
  assert.deepEqual(softphonePeer(binding('sip:alice@198.51.100.4:5070'), 'auto'), { transport: 'UDP', address: '198.51.100.4', port: 5070 });
  assert.deepEqual(softphonePeer(binding('sip:alice@10.0.0.9', { receivedAddress: '10.0.0.9', receivedPort: 5099 }), 'auto'), { transport: 'UDP', address: '10.0.0.9', port: 5060 });
});

test('nat: always, and TCP or TLS bindings, go to the source (its connection)', () => {
  assert.deepEqual(softphonePeer(binding('sip:alice@198.51.100.4:5070'), 'always'), { transport: 'UDP', address: '203.0.113.7', port: 40312, accepted: false });
  assert.deepEqual(softphonePeer(binding('sip:alice@198.51.100.4:5070;transport=tls', { transport: 'TLS' }), 'auto'), { transport: 'TLS', address: '203.0.113.7', port: 40312, accepted: true });
});

test('the INVITE: the Contact as Request-URI, the user\'s address of record as To, the caller as From', () => {
  const invite = softphoneInvite(binding('sip:alice-x1@192.168.1.20:5062;ob'), 'acme.alice', 'auto', 'sip.example.com', '+14155550142', 'v=0');
  assert.deepEqual([invite.uri, invite.to, invite.from, invite.peer.address], ['sip:alice-x1@192.168.1.20:5062;ob', 'sip:acme.alice@sip.example.com', { user: '+14155550142', host: 'sip.example.com' }, '203.0.113.7']);
});
