// One SMPP link as the server runs it: binds (one transceiver session, or a transmitter and
// a receiver), keeps it alive with enquire_link, reconnects with exponential backoff, and
// sends submit_sm through a window (requests in flight) and a rate cap (max_per_second).
// Throttling answers pause the whole link and retry; other errors go back to the caller with
// the SMPP status. It knows nothing of messages or the database: the carrier does.
import { EventEmitter } from 'node:events';
import smpp, { type Pdu, type Session } from 'smpp';
import type { SmppBindConfig } from './config.ts';
import { openSession, closeSession, type BindCommand } from './connect.ts';
import { RETRYABLE_STATUSES, describeStatus, statusName } from './status-codes.ts';
import { smppSubmits } from '../../platform/metrics.ts';

// The package decodes short_message/message_payload into text per PDU. A concatenated
// UCS-2 message can split a surrogate pair across two PDUs, so we keep raw octets and
// decode after reassembly (mo.ts); receipts are plain ASCII either way.
smpp.filters.message.decode = (value: unknown) => value;

/** switchboard_smpp_submit_total: one per submit_sm answered (or lost) on a link. */
function countSubmit(link: string, result: 'accepted' | 'throttled' | 'rejected' | 'error'): void {
  smppSubmits.inc({ link, result });
}

/** The SMSC refused this submit_sm for good (a bad address, a rejected message...). */
export class SmppRejected extends Error {
  constructor(readonly status: number) {
    super(`the SMSC refused the message: ${describeStatus(status)}`);
  }
  get code(): string {
    return statusName(this.status);
  }
}

/** The link could not take or finish the request now; the caller retries later. */
export class SmppUnavailable extends Error {}

export type DeliverHandler = (pdu: Pdu) => Promise<number>;

export type LinkState = 'connecting' | 'bound' | 'down' | 'stopped';

interface Waiter { resolve: () => void; reject: (e: Error) => void; timer: NodeJS.Timeout }

export class SmppLink extends EventEmitter {
  state: LinkState = 'connecting';
  /** Why the link is not bound, for logs and `carriers check`. */
  lastError: string | null = null;
  private tx: Session | null = null;
  private rx: Session | null = null;
  private inFlight = 0;
  private windowWaiters: Waiter[] = [];
  private boundWaiters: Waiter[] = [];
  private pending = new Map<Session, Set<(e: Error) => void>>();
  private nextSendAt = 0;
  private pausedUntil = 0;
  private throttleDelayMs = 0;
  private reconnectDelayMs: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private keepalive: NodeJS.Timeout | null = null;
  private reference = Math.floor(Math.random() * 256);

  constructor(readonly config: SmppBindConfig, private readonly onDeliver: DeliverHandler, private readonly log: (msg: string, extra?: object) => void) {
    super();
    this.reconnectDelayMs = config.reconnect_min_seconds * 1000;
  }

  start(): void {
    void this.connect();
  }

  /** The next concatenation reference (0-255) for a long message on this link. */
  nextReference(): number {
    this.reference = (this.reference + 1) & 0xff;
    return this.reference;
  }

  /**
   * Sends one submit_sm and hands the SMSC's message_id to `record` while the request still
   * holds its window slot. Waits (up to `waitMs`) for the bind, a window slot and the rate cap;
   * retries throttling answers after a pause.
   *
   * The slot frees only once `record` has finished (the part row committed): so at most
   * `window` parts are ever accepted by the SMSC and not yet recorded, which bounds what a
   * crash can submit twice. Freed at the answer instead, a slow commit let the next submits
   * through meanwhile, and a SIGKILL under load resubmitted more parts than the window.
   */
  async submit(options: Record<string, unknown>, waitMs: number, record: (carrierId: string) => Promise<void>): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      await this.whenBound(deadline);
      await this.acquireWindow(deadline);
      let pdu: Pdu;
      try {
        await this.pace(deadline);
        pdu = await this.request(this.tx!, new smpp.PDU('submit_sm', options)).catch((err: unknown) => {
          countSubmit(this.config.name, 'error');
          throw err;
        });
        if (pdu.command_status === 0) {
          countSubmit(this.config.name, 'accepted');
          this.throttleDelayMs = 0;
          await record(String(pdu.message_id));
          return;
        }
      } finally {
        this.releaseWindow();
      }
      if (!RETRYABLE_STATUSES.has(pdu.command_status)) {
        countSubmit(this.config.name, 'rejected');
        throw new SmppRejected(pdu.command_status);
      }
      countSubmit(this.config.name, 'throttled');
      // Throttled or queue full: the whole link slows down, then this submit tries again.
      this.throttleDelayMs = Math.min(5000, Math.max(100, this.throttleDelayMs * 2));
      this.pausedUntil = Date.now() + this.throttleDelayMs;
      this.log('SMSC asked us to slow down', { link: this.config.name, status: statusName(pdu.command_status), pause_ms: this.throttleDelayMs });
      if (Date.now() + this.throttleDelayMs > deadline) throw new SmppUnavailable(`the SMSC keeps answering ${statusName(pdu.command_status)}`);
    }
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.keepalive) clearInterval(this.keepalive);
    this.failWaiters(new SmppUnavailable('the link is stopping'));
    const sessions = [...new Set([this.tx, this.rx])].filter((s): s is Session => s !== null);
    this.tx = this.rx = null;
    await Promise.all(sessions.map((s) => closeSession(s)));
  }

  private async connect(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'connecting';
    const timeoutMs = this.config.response_timeout_seconds * 1000;
    try {
      if (this.config.bind === 'transceiver') {
        this.tx = this.rx = await openSession(this.config, 'bind_transceiver', timeoutMs);
        this.watch(this.tx);
      } else {
        const pair: [BindCommand, BindCommand] = ['bind_transmitter', 'bind_receiver'];
        const [tx, rx] = await Promise.all(pair.map((c) => openSession(this.config, c, timeoutMs)));
        this.tx = tx!;
        this.rx = rx!;
        this.watch(this.tx);
        this.watch(this.rx);
      }
    } catch (err) {
      this.lastError = (err as Error).message;
      this.log('SMPP bind failed', { link: this.config.name, error: this.lastError, retry_in_ms: this.reconnectDelayMs });
      return this.scheduleReconnect();
    }
    if ((this.state as LinkState) === 'stopped') return void this.stop();
    this.state = 'bound';
    this.lastError = null;
    this.reconnectDelayMs = this.config.reconnect_min_seconds * 1000;
    this.log('SMPP link bound', { link: this.config.name });
    this.keepalive = setInterval(() => this.enquire(), this.config.enquire_link_seconds * 1000);
    this.keepalive.unref();
    for (const w of this.boundWaiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve();
    }
    this.emit('bound');
  }

  private watch(session: Session): void {
    this.pending.set(session, new Set());
    session.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    session.on('close', () => this.lost(session, this.lastError ?? 'the SMSC closed the connection'));
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: Pdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('deliver_sm', (pdu: Pdu) => {
      this.onDeliver(pdu).then(
        (status) => session.send(pdu.response({ command_status: status })),
        (err: Error) => {
          this.log('deliver_sm not applied; the SMSC will send it again', { link: this.config.name, error: err.message });
          session.send(pdu.response({ command_status: 0x64 /* ESME_RX_T_APPN: try later */ }));
        },
      );
    });
    session.resume(); // openSession hands it over paused, so nothing arrived before these listeners
  }

  private lost(session: Session, reason: string): void {
    const waiting = this.pending.get(session);
    this.pending.delete(session);
    for (const reject of waiting ?? []) reject(new SmppUnavailable(`the connection to the SMSC dropped before it answered (${reason})`));
    if (session !== this.tx && session !== this.rx) return;
    const others = [this.tx, this.rx].filter((s) => s && s !== session) as Session[];
    this.tx = this.rx = null;
    for (const s of others) s.destroy();
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
    if (this.state === 'stopped') return;
    this.state = 'down';
    this.lastError = reason;
    this.log('SMPP link lost; reconnecting', { link: this.config.name, reason, retry_in_ms: this.reconnectDelayMs });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.state === 'stopped') return;
    this.state = 'down';
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.config.reconnect_max_seconds * 1000, delay * 2);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private enquire(): void {
    for (const session of new Set([this.tx, this.rx])) {
      if (!session) continue;
      this.request(session, new smpp.PDU('enquire_link', {})).catch(() => session.destroy());
    }
  }

  /** A request and its response, failing on timeout or when the connection drops. */
  private request(session: Session, pdu: Pdu): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      const pending = this.pending.get(session);
      if (!pending) return reject(new SmppUnavailable('the connection to the SMSC is gone'));
      const fail = (e: Error) => {
        clearTimeout(timer);
        pending.delete(fail);
        reject(e);
      };
      const timer = setTimeout(() => {
        fail(new SmppUnavailable(`no ${pdu.command}_resp within ${this.config.response_timeout_seconds} s`));
        session.destroy(); // an SMSC that stops answering is treated as a lost connection
      }, this.config.response_timeout_seconds * 1000);
      pending.add(fail);
      const sent = session.send(pdu, (response: Pdu) => {
        clearTimeout(timer);
        pending.delete(fail);
        resolve(response);
      });
      if (!sent) fail(new SmppUnavailable('the connection to the SMSC is not writable'));
    });
  }

  private whenBound(deadline: number): Promise<void> {
    if (this.state === 'bound' && this.tx) return Promise.resolve();
    if (this.state === 'stopped') return Promise.reject(new SmppUnavailable('the link is stopped'));
    return this.wait(this.boundWaiters, deadline, () => `the link is not bound (${this.lastError ?? 'connecting'})`);
  }

  private acquireWindow(deadline: number): Promise<void> {
    if (this.inFlight < this.config.window) {
      this.inFlight++;
      return Promise.resolve();
    }
    return this.wait(this.windowWaiters, deadline, () => `the window of ${this.config.window} stayed full`).then(() => {
      this.inFlight++;
    });
  }

  private releaseWindow(): void {
    this.inFlight--;
    const next = this.windowWaiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
    }
  }

  /** Spaces submits 1/max_per_second apart, and waits out a throttling pause. */
  private async pace(deadline: number): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.nextSendAt, this.pausedUntil);
    this.nextSendAt = at + 1000 / this.config.max_per_second;
    if (at > deadline) throw new SmppUnavailable('the rate cap would delay this message past its wait');
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
    if (!this.tx) throw new SmppUnavailable(`the link went down (${this.lastError ?? 'closed'})`);
  }

  private wait(queue: Waiter[], deadline: number, why: () => string): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve, reject,
        timer: setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(new SmppUnavailable(why()));
        }, Math.max(0, deadline - Date.now())),
      };
      queue.push(waiter);
    });
  }

  private failWaiters(err: Error): void {
    for (const w of [...this.boundWaiters.splice(0), ...this.windowWaiters.splice(0)]) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
