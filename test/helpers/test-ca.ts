// A throwaway certificate authority for TLS tests, made with the openssl command line: a
// self-signed CA and leaf certificates it signs for 127.0.0.x addresses (and names), valid
// for two days. P-256 keys, so generating them takes milliseconds.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  /** The CA's certificate (PEM file): what a peer trusts. */
  caFile: string;
  /** A certificate for these addresses and names, signed by the CA. */
  issue(name: string, subjectAltNames: { ips?: string[]; dns?: string[] }): { certFile: string; keyFile: string };
}

function openssl(args: string[], cwd: string): void {
  const run = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${run.stderr}`);
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function createTestCa(commonName = 'Switchboard test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'test-ca-'));
  openssl(['req', '-x509', ...NEW_KEY, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', `/CN=${commonName}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    issue(name, { ips = [], dns = [] }) {
      const alt = [...ips.map((ip) => `IP:${ip}`), ...dns.map((d) => `DNS:${d}`)].join(',');
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n`);
      openssl(['req', '-new', ...NEW_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
      openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`], dir);
      return { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
    },
  };
}
