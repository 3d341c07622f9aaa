// Compiled by `tsc -p sdks/node` (npm run sdks:check), never run: it proves the declarations
// are valid TypeScript and type real usage the way the README shows it.
import { Switchboard, verifyWebhook, APIError, RateLimitError, type Call, type Message } from '../src/index.js';

export async function typedUsage(client: Switchboard, body: string, headers: Headers): Promise<void> {
  const call = await client.createCall({ from: '+14155550123', to: '+14155550100', record: true }, { idempotencyKey: 'k1', timeout: 5000 });
  const status: 'queued' | 'ringing' | 'in_progress' | 'completed' | 'busy' | 'no_answer' | 'failed' | 'canceled' = call.status;
  void status;
  const plain: Call = call;
  void plain;
  const remaining: number | undefined = call.lastResponse.rateLimit.remaining;
  void remaining;
  const page = await client.listMessages({ limit: 100 });
  const next: string | null = page.next_cursor;
  void next;
  for await (const message of client.listMessages({ limit: 100 })) {
    const m: Message = message;
    void m;
  }
  const event = verifyWebhook(body, headers, 'whsec_abc', { toleranceSeconds: 60 });
  const type: string = event.type;
  void type;
  try {
    await client.getCall('call_x');
  } catch (e) {
    if (e instanceof RateLimitError) void e.headers.get('retry-after');
    if (e instanceof APIError) void [e.code, e.detail, e.requestId, e.errors.map((x) => x.field)];
  }
}
