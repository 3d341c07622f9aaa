// A softphone's SIP password: made here, shown once, kept only as the digest HA1
// (MD5 of user:realm:password, RFC 2617/7616), which is all the registrar needs to check a
// REGISTER's digest answer. A new password replaces the old HA1, so the old one stops working.
import { createHash, randomBytes } from 'node:crypto';

/** The realm Switchboard's registrar challenges softphones with; the HA1 is bound to it. */
export const SOFTPHONE_REALM = 'switchboard';

export function newSipPassword(): string {
  // 144 bits, in characters every softphone's settings field accepts.
  return randomBytes(18).toString('base64url');
}

export function digestHa1(username: string, password: string, realm = SOFTPHONE_REALM): string {
  return createHash('md5').update(`${username}:${realm}:${password}`).digest('hex');
}
