// A local stand-in for Meta's side of the WhatsApp Cloud API, implementing the documented
// shapes (https://developers.facebook.com/docs/whatsapp/cloud-api): POST
// /{version}/{phone_number_id}/messages with a bearer token answers `{ messaging_product,
// contacts, messages: [{ id: wamid }] }` or a Graph error object; GET /{version}/{phone_number_id}
// answers the phone number object. As Meta's webhook sender it signs each notification with
// the app secret (X-Hub-Signature-256: sha256=HMAC-SHA256 of the body) and redelivers until
// it gets a 200, and it performs the hub.challenge handshake. Our code never shares its code.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphRequest { path: string; authorization: string | undefined; body: any }

export interface GraphError { status: number; code: number; message: string; type?: string }

export interface FakeGraph {
  baseUrl: string;
  requests: GraphRequest[];
  /** Accepted message objects with the wamid given, in order. */
  accepted: { wamid: string; body: any }[];
  /** Answer the messages endpoint with this error for a recipient (digits), every time. */
  refuse: Map<string, GraphError>;
  /** Answer the next n message requests with this error (rate limits, outages). */
  failNext(n: number, error: GraphError): void;
  /** Meta's webhook: POSTs a signed notification to `url` until it answers 200 (up to `attempts`). */
  notify(url: string, notification: object, opts?: { attempts?: number; signWith?: string }): Promise<{ status: number; attempts: number }>;
  /** The notification Meta sends for statuses of our messages. */
  statusNotification(statuses: Array<{ wamid: string; status: 'sent' | 'delivered' | 'read' | 'failed'; recipient: string; error?: { code: number; title: string } }>): object;
  /** The notification Meta sends for a customer's message. */
  messageNotification(m: { from: string; text?: string; image?: { id: string; caption?: string }; timestamp?: number; wamid?: string }): object;
  close(): Promise<void>;
}

export async function startFakeGraph(opts: { token: string; phoneNumberId: string; displayPhoneNumber: string; appSecret: string }): Promise<FakeGraph> {
  let failing = { n: 0, error: null as GraphError | null };
  const graph = { requests: [], accepted: [], refuse: new Map() } as unknown as FakeGraph;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const error = (e: GraphError) => send(e.status, { error: { message: e.message, type: e.type ?? 'OAuthException', code: e.code, fbtrace_id: randomBytes(8).toString('hex') } });
      const path = (req.url ?? '').split('?')[0]!;
      let body: any = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        return error({ status: 400, code: 100, message: 'Invalid parameter' });
      }
      graph.requests.push({ path, authorization: req.headers.authorization, body });
      if (req.headers.authorization !== `Bearer ${opts.token}`) return error({ status: 401, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      const m = /^\/v\d+\.\d+\/(\d+)(\/messages)?$/.exec(path);
      if (!m || m[1] !== opts.phoneNumberId) return error({ status: 400, code: 100, message: `Unsupported request - method type: ${req.method}`, type: 'GraphMethodException' });
      if (!m[2] && req.method === 'GET') return send(200, { verified_name: 'Test Business', display_phone_number: opts.displayPhoneNumber, id: opts.phoneNumberId, quality_rating: 'GREEN' });
      if (req.method !== 'POST' || !m[2]) return error({ status: 400, code: 100, message: 'Unsupported request' });
      if (body?.messaging_product !== 'whatsapp' || typeof body.to !== 'string' || !/^\d+$/.test(body.to)) {
        return error({ status: 400, code: 100, message: '(#100) Invalid parameter' });
      }
      const shapes: Record<string, (b: any) => boolean> = {
        text: (b) => typeof b.text?.body === 'string' && b.text.body.length > 0,
        template: (b) => typeof b.template?.name === 'string' && typeof b.template?.language?.code === 'string',
        image: (b) => typeof b.image?.link === 'string', video: (b) => typeof b.video?.link === 'string',
        audio: (b) => typeof b.audio?.link === 'string' && b.audio.caption === undefined, document: (b) => typeof b.document?.link === 'string',
      };
      if (!shapes[body.type]?.(body)) return error({ status: 400, code: 131008, message: `(#131008) Required parameter is missing for type ${body.type}` });
      if (failing.n > 0) {
        failing.n--;
        return error(failing.error!);
      }
      const refusal = graph.refuse.get(body.to);
      if (refusal) return error(refusal);
      const wamid = `wamid.${randomBytes(12).toString('base64url')}`;
      graph.accepted.push({ wamid, body });
      send(200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: wamid }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const change = (value: object) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: opts.displayPhoneNumber, phone_number_id: opts.phoneNumberId }, ...value } }] }],
  });

  return Object.assign(graph, {
    baseUrl: `http://127.0.0.1:${port}`,
    failNext(n: number, error: GraphError) { failing = { n, error }; },
    async notify(url: string, notification: object, o: { attempts?: number; signWith?: string } = {}) {
      const raw = JSON.stringify(notification);
      const signature = `sha256=${createHmac('sha256', o.signWith ?? opts.appSecret).update(raw).digest('hex')}`;
      let status = 0;
      let attempts = 0;
      while (attempts < (o.attempts ?? 5)) {
        attempts++;
        status = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body: raw }).then((r) => r.status, () => 0);
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return { status, attempts };
    },
    statusNotification(statuses: Parameters<FakeGraph['statusNotification']>[0]) {
      const now = Math.floor(Date.now() / 1000);
      return change({
        statuses: statuses.map((s) => ({
          id: s.wamid, status: s.status, timestamp: String(now), recipient_id: s.recipient,
          ...(s.status === 'failed' && s.error ? { errors: [{ code: s.error.code, title: s.error.title, message: s.error.title, error_data: { details: s.error.title } }] } : {}),
          ...(s.status !== 'failed' ? { conversation: { id: 'c1', origin: { type: 'service' } }, pricing: { billable: true, pricing_model: 'CBP', category: 'service' } } : {}),
        })),
      });
    },
    messageNotification(m: Parameters<FakeGraph['messageNotification']>[0]) {
      const message: Record<string, unknown> = {
        from: m.from, id: m.wamid ?? `wamid.${randomBytes(12).toString('base64url')}`, timestamp: String(m.timestamp ?? Math.floor(Date.now() / 1000)),
        ...(m.image ? { type: 'image', image: { id: m.image.id, mime_type: 'image/jpeg', sha256: 'x', ...(m.image.caption ? { caption: m.image.caption } : {}) } } : { type: 'text', text: { body: m.text ?? '' } }),
      };
      return change({ contacts: [{ profile: { name: 'Customer' }, wa_id: m.from }], messages: [message] });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
