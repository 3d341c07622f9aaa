// Opening one SMPP session: TCP or TLS, then the bind PDU. Shared by the live bind and by
// `switchboard carriers check`, so the probe tests exactly what the server will do.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import smpp, { type Pdu, type Session } from 'smpp';
import type { SmppBindConfig } from './config.ts';
import { describeStatus } from './status-codes.ts';

export type BindCommand = 'bind_transceiver' | 'bind_transmitter' | 'bind_receiver';

export class SmppBindError extends Error {
  constructor(message: string, readonly commandStatus: number | null) {
    super(message);
  }
}

/** Connects and binds; resolves with the bound session, paused (resume it once listening), or rejects with a readable reason. */
export function openSession(bind: SmppBindConfig, command: BindCommand, timeoutMs: number): Promise<Session> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({
      host: bind.host, port: bind.port, tls: bind.tls,
      // SNI carries host names only (RFC 6066); an IP address is still checked against the certificate.
      ...(bind.tls ? { ...(isIP(bind.host) ? {} : { servername: bind.host }), ...(bind.tls_ca_file ? { ca: readFileSync(bind.tls_ca_file) } : {}) } : {}),
    });
    let settled = false;
    const fail = (err: SmppBindError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new SmppBindError(`no answer to ${command} within ${timeoutMs} ms`, null)), timeoutMs);
    session.on('error', (err: Error) => fail(new SmppBindError(`cannot connect to ${bind.host}:${bind.port}: ${err.message}`, null)));
    session.on('close', () => fail(new SmppBindError(`${bind.host}:${bind.port} closed the connection before answering ${command}`, null)));
    session.once(bind.tls ? 'secureConnect' : 'connect', () => {
      session.send(new smpp.PDU(command, {
        system_id: bind.system_id, password: bind.password, system_type: bind.system_type, interface_version: 0x34,
      }), (pdu: Pdu) => {
        if (pdu.command_status !== 0) return fail(new SmppBindError(`${command} refused: ${describeStatus(pdu.command_status)}`, pdu.command_status));
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        session.removeAllListeners('error');
        session.removeAllListeners('close');
        // PDUs read in the same chunk as bind_resp (an SMSC resending stored receipts right
        // after the bind) would be emitted before the caller's listeners are on, and lost
        // unanswered: the session waits, paused, until the caller resumes it.
        session.pause();
        resolve(session);
      });
    });
  });
}

/** Unbinds politely, then closes; never throws. */
export function closeSession(session: Session, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      session.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    session.on('error', () => {});
    session.resume(); // a session fresh from openSession is paused: it must read unbind_resp
    if (!session.send(new smpp.PDU('unbind', {}), done)) done();
  });
}
