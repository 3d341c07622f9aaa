// HTTP Digest authentication as SIP uses it (RFC 3261 22.4, RFC 2617, RFC 8760 for
// SHA-256): the client answers a 401 WWW-Authenticate or 407 Proxy-Authenticate challenge.
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque: string | undefined;
  algorithm: string;
  qop: string[];
  stale: boolean;
}

export function parseChallenge(header: string): DigestChallenge {
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) throw new Error(`not a Digest challenge: ${header.slice(0, 60)}`);
  const params: Record<string, string> = {};
  const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = re.exec(match[1] as string); m; m = re.exec(match[1] as string)) {
    params[(m[1] as string).toLowerCase()] = m[2] ?? m[3] ?? '';
  }
  if (!params.realm || params.nonce === undefined) throw new Error('Digest challenge without realm or nonce');
  return {
    realm: params.realm,
    nonce: params.nonce,
    opaque: params.opaque,
    algorithm: params.algorithm ?? 'MD5',
    qop: (params.qop ?? '').split(',').map((q) => q.trim()).filter(Boolean),
    stale: (params.stale ?? '').toLowerCase() === 'true',
  };
}

function hash(algorithm: string, text: string): string {
  return createHash(algorithm.toUpperCase().startsWith('SHA-256') ? 'sha256' : 'md5').update(text).digest('hex');
}

export interface DigestCredentials {
  username: string;
  password: string;
}

/** The Authorization / Proxy-Authorization value answering `challenge` for one request. */
export function answerChallenge(challenge: DigestChallenge, credentials: DigestCredentials, method: string, uri: string, nonceCount = 1, cnonce = randomBytes(8).toString('hex')): string {
  const algorithm = challenge.algorithm.toUpperCase();
  if (algorithm !== 'MD5' && algorithm !== 'SHA-256') throw new Error(`unsupported digest algorithm ${challenge.algorithm}`);
  const ha1 = hash(algorithm, `${credentials.username}:${challenge.realm}:${credentials.password}`);
  const ha2 = hash(algorithm, `${method}:${uri}`);
  const parts = [
    `username="${credentials.username}"`, `realm="${challenge.realm}"`, `nonce="${challenge.nonce}"`, `uri="${uri}"`,
  ];
  if (challenge.qop.includes('auth')) {
    const nc = nonceCount.toString(16).padStart(8, '0');
    parts.push(`response="${hash(algorithm, `${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)}"`, 'qop=auth', `nc=${nc}`, `cnonce="${cnonce}"`);
  } else {
    parts.push(`response="${hash(algorithm, `${ha1}:${challenge.nonce}:${ha2}`)}"`);
  }
  parts.push(`algorithm=${challenge.algorithm}`);
  if (challenge.opaque !== undefined) parts.push(`opaque="${challenge.opaque}"`);
  return `Digest ${parts.join(', ')}`;
}
