// The files behind SIP over TLS: our certificate and key (the TLS listener, and a client
// certificate for carriers that ask for one) and the CAs we trust for peers. They are read
// when the carriers file loads, so a missing file or a key that does not match its
// certificate stops `serve` at start with the field named, not at the first call.
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import type { TransportTls } from './transport.ts';
import type { SipTlsSettings } from './settings.ts';

/** The files as the transport uses them (throws when one cannot be read). */
export function transportTls(settings: SipTlsSettings): TransportTls {
  return {
    cert: settings.certFile ? readFileSync(settings.certFile) : undefined,
    key: settings.keyFile ? readFileSync(settings.keyFile) : undefined,
    ca: settings.caFile ? readFileSync(settings.caFile) : undefined,
    verify: settings.verify,
  };
}

/** Problems with the files, each at its field: unreadable, not PEM, or a key that is not the certificate's. */
export function tlsFileProblems(settings: SipTlsSettings): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const read = (field: string, file: string | undefined): Buffer | undefined => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      problems.push({ path: [field], message: `cannot be read: ${(err as Error).message}` });
      return undefined;
    }
  };
  const cert = read('cert_file', settings.certFile);
  const key = read('key_file', settings.keyFile);
  const ca = read('ca_file', settings.caFile);
  if (ca) {
    const problem = pemCertificatesProblem(ca.toString('latin1'));
    if (problem) problems.push({ path: ['ca_file'], message: `is not a PEM certificate list: ${problem}` });
  }
  if (cert && key) {
    try {
      createSecureContext({ cert, key });
    } catch (err) {
      problems.push({ path: ['key_file'], message: `does not go with cert_file: ${(err as Error).message}` });
    }
  }
  return problems;
}

/** Why `text` is not one or more PEM certificates (OpenSSL skips what it cannot read, silently). */
function pemCertificatesProblem(text: string): string | undefined {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (!blocks) return 'no -----BEGIN CERTIFICATE----- block';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      return `certificate ${i + 1}: ${(err as Error).message}`;
    }
  }
  return undefined;
}
