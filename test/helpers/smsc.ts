// A test SMSC on 127.0.0.1 built with the `smpp` package's server (a real SMPP 3.4
// implementation nobody here wrote). Tests steer it: which passwords bind, how it answers
// submit_sm (accept, throttle, refuse), when receipts go out (before or after
// submit_sm_resp, in the TLV or the text form), dropping a connection mid-window, and
// mobile-originated messages to send. Like a real SMSC it stores a delivery receipt until the
// ESME acknowledges it with deliver_sm_resp status 0: a receipt sent on a connection that
// died unanswered, or answered with an error, goes out again (on the next bind, or after a
// short pause), so a receiver that crashed before recording it gets it anyway.
import smpp, { type Pdu, type Session } from 'smpp';
import type { AddressInfo } from 'node:net';

export interface Submission {
  messageId: string;
  systemId: string;
  source: string;
  destination: string;
  dataCoding: number;
  esmClass: number;
  /** The user data as sent (short_message or message_payload), UDH included. */
  payload: Buffer;
  viaPayloadTlv: boolean;
  registeredDelivery: number;
  at: number;
}

export type ReceiptTiming = 'after' | 'before' | 'none';
export type ReceiptForm = 'tlv' | 'text';

export interface TestSmsc {
  port: number;
  submissions: Submission[];
  binds: { systemId: string; command: string; ok: boolean }[];
  /** Live bound sessions. */
  sessions(): Session[];
  /** Final state per destination; default DELIVRD. */
  finalState: Map<string, 'DELIVRD' | 'UNDELIV' | 'REJECTD' | 'EXPIRED'>;
  /** Permanent refusal per destination: the command_status submit_sm_resp answers. */
  refuse: Map<string, number>;
  receiptTiming: ReceiptTiming;
  receiptForm: ReceiptForm;
  receiptDelayMs: number;
  /** While true, receipts are stored but not sent: they go out at the next bind after it is false again. */
  holdReceipts: boolean;
  /** When the receipt for each destination went out (ms since epoch), for latency figures. */
  receiptSentAt: Map<string, number>;
  /** Answer the next n submit_sm with this status (ESME_RTHROTTLED 0x58, ESME_RMSGQFUL 0x14). */
  throttleNext(n: number, status?: number): void;
  /** Swallow the next n submit_sm without answering, then drop the connection. */
  dropAfterSubmits(n: number): void;
  /** Receipts sent or waiting to be sent that the ESME has not acknowledged with status 0. */
  unacknowledgedReceipts(): number;
  /** Deliver a mobile-originated message on a bound receiver/transceiver. */
  sendMo(mo: { from: string; to: string; shortMessage?: Buffer; messagePayload?: Buffer; dataCoding: number; esmClass?: number }): Promise<void>;
  close(): Promise<void>;
}

/** `tls`: a key and certificate make it an SMPP-over-TLS server (the package's SecureServer). */
export async function startTestSmsc(accounts: Record<string, string>, opts: { tls?: { key: Buffer; cert: Buffer } } = {}): Promise<TestSmsc> {
  let nextId = 1;
  let throttle = { n: 0, status: 0x58 };
  let drop = { armed: false, remaining: 0 };
  const dropped = new WeakSet<Session>();
  /** Receipts not yet acknowledged, by SMSC message id; `on` is the session carrying one now. */
  const unacknowledged = new Map<string, { options: Record<string, unknown>; on: Session | null }>();
  const bound = new Set<Session>();
  const smsc = {} as TestSmsc;
  Object.assign(smsc, {
    submissions: [] as Submission[],
    binds: [] as TestSmsc['binds'],
    finalState: new Map(),
    refuse: new Map(),
    receiptTiming: 'after' as ReceiptTiming,
    receiptForm: 'tlv' as ReceiptForm,
    receiptDelayMs: 5,
    holdReceipts: false,
    receiptSentAt: new Map(),
  });

  const server = smpp.createServer(opts.tls ?? {}, (session: Session) => {
    let systemId = '';
    session.on('error', () => {});
    session.on('close', () => {
      bound.delete(session);
      let orphaned = false;
      for (const receipt of unacknowledged.values()) {
        if (receipt.on === session) {
          receipt.on = null;
          orphaned = true;
        }
      }
      // Another receiver may be bound already (a restarted ESME binds before its old connection is seen closed).
      if (orphaned) setTimeout(redeliver, 200);
    });
    for (const command of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) {
      session.on(command, (pdu: Pdu) => {
        const ok = accounts[pdu.system_id] !== undefined && accounts[pdu.system_id] === pdu.password;
        smsc.binds.push({ systemId: pdu.system_id, command, ok });
        if (!ok) {
          session.send(pdu.response({ command_status: accounts[pdu.system_id] === undefined ? 0x0f : 0x0e }));
          setTimeout(() => session.close(), 10);
          return;
        }
        systemId = pdu.system_id;
        if (command !== 'bind_transmitter') bound.add(session);
        session.send(pdu.response({ system_id: 'testsmsc' }));
        if (command !== 'bind_transmitter') setTimeout(redeliver, 20);
      });
    }
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: Pdu) => {
      session.send(pdu.response());
      setTimeout(() => session.close(), 5);
    });
    session.on('deliver_sm_resp', () => {});
    session.on('submit_sm', (pdu: Pdu) => {
      // The smpp package still emits PDUs it had already read from a socket we destroyed; an
      // SMSC that dropped the connection cannot accept them (nor could its answer arrive).
      if (dropped.has(session)) return;
      if (drop.armed) {
        if (--drop.remaining <= 0) {
          drop.armed = false;
          dropped.add(session);
          session.destroy();
        }
        return;
      }
      if (throttle.n > 0) {
        throttle.n--;
        session.send(pdu.response({ command_status: throttle.status }));
        return;
      }
      const refusal = smsc.refuse.get(pdu.destination_addr);
      if (refusal !== undefined) {
        session.send(pdu.response({ command_status: refusal }));
        return;
      }
      const messageId = `smsc${String(nextId++).padStart(6, '0')}`;
      const viaPayloadTlv = Buffer.isBuffer(pdu.message_payload) || (pdu.message_payload && typeof pdu.message_payload === 'object');
      const payload = toBuffer(viaPayloadTlv ? pdu.message_payload : pdu.short_message);
      smsc.submissions.push({
        messageId, systemId, source: pdu.source_addr, destination: pdu.destination_addr, dataCoding: pdu.data_coding,
        esmClass: pdu.esm_class, payload, viaPayloadTlv: Boolean(viaPayloadTlv), registeredDelivery: pdu.registered_delivery, at: Date.now(),
      });
      const receipt = () => sendReceipt(messageId, pdu);
      if (smsc.receiptTiming === 'before' && pdu.registered_delivery) {
        receipt();
        setTimeout(() => session.send(pdu.response({ message_id: messageId })), smsc.receiptDelayMs + 20);
        return;
      }
      session.send(pdu.response({ message_id: messageId }));
      if (smsc.receiptTiming === 'after' && pdu.registered_delivery) setTimeout(receipt, smsc.receiptDelayMs);
    });
  });

  function receiver(): Session | undefined {
    return [...bound][0];
  }

  function sendReceipt(messageId: string, submit: Pdu) {
    const stat = smsc.finalState.get(submit.destination_addr) ?? 'DELIVRD';
    const err = stat === 'DELIVRD' ? '000' : '001';
    const stamp = '2611230830';
    const text = `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:${stamp} done date:${stamp} stat:${stat} err:${err} text:`;
    const state = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5, REJECTD: 8 }[stat];
    const options: Record<string, unknown> = {
      source_addr: submit.destination_addr, source_addr_ton: 1, source_addr_npi: 1,
      destination_addr: submit.source_addr, dest_addr_ton: 1, dest_addr_npi: 1,
      esm_class: 0x04, short_message: Buffer.from(text, 'ascii'), data_coding: 0,
    };
    if (smsc.receiptForm === 'tlv') Object.assign(options, { receipted_message_id: messageId, message_state: state });
    smsc.receiptSentAt.set(submit.destination_addr, Date.now());
    unacknowledged.set(messageId, { options, on: null });
    deliverReceipt(messageId);
  }

  /** Sends a stored receipt on a bound receiver; it stays stored until answered with status 0. */
  function deliverReceipt(messageId: string) {
    const receipt = unacknowledged.get(messageId);
    const session = receiver();
    if (!receipt || receipt.on || !session || smsc.holdReceipts) return; // no receiver now (or held): the next bind gets it
    receipt.on = session;
    session.send(new smpp.PDU('deliver_sm', receipt.options), (resp: Pdu) => {
      if (resp.command_status === 0) {
        unacknowledged.delete(messageId);
        return;
      }
      receipt.on = null;
      setTimeout(() => deliverReceipt(messageId), 200);
    });
  }

  function redeliver() {
    for (const [messageId, receipt] of unacknowledged) if (!receipt.on) deliverReceipt(messageId);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(smsc, {
    port,
    sessions: () => [...bound],
    unacknowledgedReceipts: () => unacknowledged.size,
    throttleNext(n: number, status = 0x58) { throttle = { n, status }; },
    dropAfterSubmits(n: number) { drop = { armed: true, remaining: n }; },
    sendMo(mo: Parameters<TestSmsc['sendMo']>[0]) {
      return new Promise<void>((resolve, reject) => {
        const session = receiver();
        if (!session) return reject(new Error('no bound receiver to deliver the MO message to'));
        session.send(new smpp.PDU('deliver_sm', {
          source_addr: mo.from, source_addr_ton: 1, source_addr_npi: 1, destination_addr: mo.to, dest_addr_ton: 1, dest_addr_npi: 1,
          esm_class: mo.esmClass ?? 0, data_coding: mo.dataCoding,
          ...(mo.messagePayload ? { message_payload: mo.messagePayload } : { short_message: mo.shortMessage }),
        }), () => resolve());
      });
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of server.sessions) s.destroy();
      server.close(() => resolve());
    }),
  });
}

function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value && typeof value === 'object' && 'message' in value) {
    const v = value as { udh?: Buffer; message: Buffer | string };
    return Buffer.concat([v.udh ?? Buffer.alloc(0), Buffer.isBuffer(v.message) ? v.message : Buffer.from(v.message)]);
  }
  return Buffer.from(String(value ?? ''));
}
