// SIP over TLS in the carriers file: the `tls` files (read at load, so a missing file or a key
// that is not the certificate's stops `serve` with the field named), the rules the schema
// cannot say (a TLS listener needs its files, a TLS trunk needs a TLS listener, `sips` needs
// TLS), and how a TLS trunk is addressed (`;transport=tls`, or `sips:`, port 5061).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCarriersText, CarriersFileError } from '../../src/carriers/config/load.ts';
import { sipSettings, type SipSectionConfig } from '../../src/carriers/sip/config.ts';
import { trunkPeer, trunkUri } from '../../src/carriers/sip/trunk-target.ts';
import { nextHop } from '../../src/carriers/sip/dialog.ts';
import { parseUri } from '../../src/carriers/sip/headers.ts';
import { peerAvailable } from '../helpers/sipp.ts';
import { createTestCa, type TestCa } from '../helpers/test-ca.ts';

const hasOpenssl = peerAvailable('openssl');
let ca: TestCa;
let cert: { certFile: string; keyFile: string };
let otherKey: string;

before(() => {
  if (!hasOpenssl) return;
  ca = createTestCa();
  cert = ca.issue('sb', { ips: ['127.0.0.1'] });
  otherKey = ca.issue('other', { dns: ['other.example'] }).keyFile;
});

function load(lines: string[]) {
  return parseCarriersText(['sip:', ...lines, ''].join('\n'), 'carriers.yaml', {});
}

function problemsOf(lines: string[]): string[] {
  try {
    load(lines);
  } catch (err) {
    assert.ok(err instanceof CarriersFileError, String(err));
    return err.problems;
  }
  assert.fail('the file was accepted');
}

describe('SIP over TLS in the carriers file', { skip: !hasOpenssl }, () => {
  test('a TLS listener and a TLS trunk load: port 5061 by default, verification on, addressed as ;transport=tls', () => {
    const config = load([
      '  listen: { host: 0.0.0.0, udp_port: 5060, tls_port: 5061 }',
      '  public_host: sip.example.com',
      `  tls: { cert_file: "${cert.certFile}", key_file: "${cert.keyFile}" }`,
      '  trunks:',
      '    - { name: telnyx, host: sip.telnyx.com, transport: tls }',
      '    - { name: secure, host: 192.0.2.10, transport: tls, sips: true, tls_server_name: sip.carrier.example }',
    ]);
    const settings = sipSettings(config.sections.sip as SipSectionConfig);
    assert.equal(settings.tlsPort, 5061);
    assert.deepEqual(settings.tls, { certFile: cert.certFile, keyFile: cert.keyFile, caFile: undefined, verify: true });
    const [telnyx, secure] = settings.trunks;
    assert.equal(trunkUri(telnyx!, '+14155550100'), 'sip:+14155550100@sip.telnyx.com:5061;transport=tls');
    assert.deepEqual(trunkPeer(telnyx!), { transport: 'TLS', address: 'sip.telnyx.com', port: 5061, serverName: undefined });
    assert.equal(trunkUri(secure!, '+14155550100'), 'sips:+14155550100@192.0.2.10:5061');
    assert.deepEqual(trunkPeer(secure!), { transport: 'TLS', address: '192.0.2.10', port: 5061, serverName: 'sip.carrier.example' });
    assert.deepEqual(config.links.map((l) => l.target), ['sip:sip.telnyx.com:5061;transport=tls', 'sips:192.0.2.10:5061']);
  });

  test('every problem names its field: files missing or unreadable, a key that is not the certificate\'s, TLS trunks without a TLS listener, sips without TLS', () => {
    assert.deepEqual(problemsOf([
      '  listen: { udp_port: 5060, tls_port: 5061 }',
      '  public_host: sip.example.com',
      '  trunks: [{ name: a, host: sip.example.net }]',
    ]), [
      // No `tls` mapping in the file: the place is the section's.
      'carriers.yaml:2:3 sip.tls.cert_file: is required for the TLS listener (listen.tls_port)',
      'carriers.yaml:2:3 sip.tls.key_file: is required for the TLS listener (listen.tls_port)',
    ]);
    const missing = join(ca.dir, 'nope.pem');
    writeFileSync(join(ca.dir, 'garbage.pem'), 'not a certificate\n');
    const problems = problemsOf([
      '  listen: { udp_port: 5060 }',
      '  public_host: sip.example.com',
      `  tls: { cert_file: "${cert.certFile}", key_file: "${otherKey}", ca_file: "${missing}" }`,
      '  trunks:',
      '    - { name: a, host: sip.example.net, transport: tls }',
      '    - { name: b, host: sip.example.net, sips: true }',
    ]);
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(problems[0]!, /^carriers.yaml:6:52 sip\.trunks\[0\]\.transport: is tls: set listen\.tls_port/);
    assert.match(problems[1]!, /^carriers.yaml:7:\d+ sip\.trunks\[1\]\.sips: needs transport: tls$/);
    assert.match(problems[2]!, /sip\.tls\.ca_file: cannot be read: ENOENT/);
    assert.match(problems[3]!, /sip\.tls\.key_file: does not go with cert_file: .*key values mismatch/);
    const garbage = problemsOf([
      '  public_host: sip.example.com',
      `  tls: { ca_file: "${join(ca.dir, 'garbage.pem')}" }`,
      '  trunks: [{ name: a, host: sip.example.net }]',
    ]);
    assert.equal(garbage.length, 1, garbage.join('\n'));
    assert.match(garbage[0]!, /sip\.tls\.ca_file: is not a PEM certificate list/);
  });

  test('inside a dialog, sips: and ;transport=tls route over TLS (5061 unless a port is given)', () => {
    const hop = (target: string, routeSet: string[] = []) => nextHop({ remoteTarget: target, routeSet, transport: 'UDP' });
    assert.deepEqual(hop('sips:+1555@carrier.example'), { transport: 'TLS', address: 'carrier.example', port: 5061 });
    assert.deepEqual(hop('sip:+1555@192.0.2.1', ['<sip:192.0.2.9:5071;transport=tls;lr>']), { transport: 'TLS', address: '192.0.2.9', port: 5071 });
    assert.deepEqual(hop('sip:+1555@192.0.2.1;transport=TCP'), { transport: 'TCP', address: '192.0.2.1', port: 5060 });
    assert.equal(parseUri('sips:a@b').scheme, 'sips');
  });
});
