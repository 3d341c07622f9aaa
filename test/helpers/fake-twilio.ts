// A local stand-in for Twilio's Programmable Messaging API, implementing its documented
// shapes (https://www.twilio.com/docs/messaging/api/message-resource): POST
// /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded, HTTP Basic auth, answering
// 201 with the Message resource or an error `{ code, message, more_info, status }`; GET
// /2010-04-01/Accounts/{AccountSid}.json. As Twilio's callback sender it POSTs status
// callbacks and inbound messages as forms signed with X-Twilio-Signature, computed by the
// official `twilio` package (getExpectedTwilioSignature), not by our code.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';

export interface TwilioCreated { sid: string; form: URLSearchParams }

export interface TwilioError { status: number; code: number; message: string }

export interface FakeTwilio {
  baseUrl: string;
  created: TwilioCreated[];
  /** Every request's Authorization header, in order. */
  authorizations: (string | undefined)[];
  refuse: Map<string, TwilioError>;
  failNext(n: number, error: TwilioError): void;
  /** Twilio's status callback for a created message, to the StatusCallback it was given. */
  statusCallback(sid: string, status: 'sent' | 'delivered' | 'undelivered' | 'failed', errorCode?: number, opts?: { signWith?: string }): Promise<number>;
  /** An inbound message POSTed to `url` (the number's messaging webhook); answers the HTTP status. */
  inbound(url: string, m: { from: string; to: string; body: string; media?: string[]; sid?: string }): Promise<{ status: number; contentType: string | null; text: string }>;
  close(): Promise<void>;
}

export async function startFakeTwilio(opts: { accountSid: string; authToken: string }): Promise<FakeTwilio> {
  let failing = { n: 0, error: null as TwilioError | null };
  const fake = { created: [], authorizations: [], refuse: new Map() } as unknown as FakeTwilio;
  const basic = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const error = (e: TwilioError) => send(e.status, { code: e.code, message: e.message, more_info: `https://www.twilio.com/docs/errors/${e.code}`, status: e.status });
      fake.authorizations.push(req.headers.authorization);
      if (req.headers.authorization !== basic) return error({ status: 401, code: 20003, message: 'Authenticate' });
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'GET' && path === `/2010-04-01/Accounts/${opts.accountSid}.json`) {
        return send(200, { sid: opts.accountSid, friendly_name: 'Test Account', status: 'active', type: 'Full' });
      }
      if (req.method !== 'POST' || path !== `/2010-04-01/Accounts/${opts.accountSid}/Messages.json`) return error({ status: 404, code: 20404, message: 'The requested resource was not found' });
      if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '')) return error({ status: 400, code: 20001, message: 'Unsupported content type' });
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = form.get('To');
      if (!to || !/^\+\d{8,15}$/.test(to)) return error({ status: 400, code: 21211, message: `The 'To' number ${to} is not a valid phone number.` });
      if (!form.get('From')) return error({ status: 400, code: 21603, message: 'A \'From\' or \'MessagingServiceSid\' parameter is required to send a message' });
      if (!form.get('Body') && form.getAll('MediaUrl').length === 0) return error({ status: 400, code: 21602, message: 'Message body is required.' });
      if (failing.n > 0) {
        failing.n--;
        return error(failing.error!);
      }
      const refusal = fake.refuse.get(to);
      if (refusal) return error(refusal);
      const sid = `SM${randomBytes(16).toString('hex')}`;
      fake.created.push({ sid, form });
      send(201, {
        sid, account_sid: opts.accountSid, to, from: form.get('From'), body: form.get('Body') ?? '', status: 'queued', direction: 'outbound-api',
        num_media: String(form.getAll('MediaUrl').length), num_segments: '1', error_code: null, error_message: null, api_version: '2010-04-01',
        uri: `/2010-04-01/Accounts/${opts.accountSid}/Messages/${sid}.json`,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  async function post(url: string, params: Record<string, string>, signWith = opts.authToken) {
    const signature = twilio.getExpectedTwilioSignature(signWith, url, params);
    const res = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature, 'i-twilio-idempotency-token': randomBytes(8).toString('hex') },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
  }

  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}`,
    failNext(n: number, error: TwilioError) { failing = { n, error }; },
    async statusCallback(sid: string, status: string, errorCode?: number, o: { signWith?: string } = {}) {
      const created = fake.created.find((c) => c.sid === sid);
      if (!created) throw new Error(`no message ${sid}`);
      const params: Record<string, string> = {
        MessageSid: sid, SmsSid: sid, AccountSid: opts.accountSid, From: created.form.get('From')!, To: created.form.get('To')!,
        MessageStatus: status, SmsStatus: status, ApiVersion: '2010-04-01', ...(errorCode ? { ErrorCode: String(errorCode) } : {}),
      };
      return (await post(created.form.get('StatusCallback')!, params, o.signWith)).status;
    },
    inbound(url: string, m: { from: string; to: string; body: string; media?: string[]; sid?: string }) {
      const sid = m.sid ?? `SM${randomBytes(16).toString('hex')}`;
      const params: Record<string, string> = {
        MessageSid: sid, SmsSid: sid, SmsMessageSid: sid, AccountSid: opts.accountSid, From: m.from, To: m.to, Body: m.body,
        NumMedia: String(m.media?.length ?? 0), NumSegments: '1', SmsStatus: 'received', ApiVersion: '2010-04-01',
      };
      for (const [i, url] of (m.media ?? []).entries()) Object.assign(params, { [`MediaUrl${i}`]: url, [`MediaContentType${i}`]: 'image/jpeg' });
      return post(url, params);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
