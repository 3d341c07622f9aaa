// The problems the API answered to each account (code, status, request id, path, time), kept
// for the console's debugger page, like Twilio's Debugger. Only authenticated requests are
// recorded: a request refused before its key was known belongs to no account. The code is read
// from the problem body as it leaves (onSend) and the row written once the response has gone
// (onResponse), so no API response waits for it. Kept for RETENTION_DAYS.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ConsoleProblemRow } from './tables.ts';

export const RETENTION_DAYS = 30;

export class ProblemLog {
  constructor(private readonly db: Kysely<Tables>, private readonly clock: Clock) {}

  async list(accountId: string, mode: Mode, limit: number): Promise<ConsoleProblemRow[]> {
    return this.db.selectFrom('console_problems').selectAll().where('account_id', '=', accountId).where('mode', '=', mode)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async prune(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - RETENTION_DAYS * 86_400_000).toISOString();
    await this.db.deleteFrom('console_problems').where('created_at', '<', before).execute();
  }

  /** Hooks on the whole app: every /v1 problem answered to a known account is recorded. */
  register(app: FastifyInstance): void {
    const codes = new WeakMap<FastifyRequest, string>();
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode >= 400 && request.auth && typeof payload === 'string' && request.url.startsWith('/v1/')) {
        const code = codeOf(payload);
        if (code) codes.set(request, code);
      }
      done(null, payload);
    });
    app.addHook('onResponse', (request, reply, done) => {
      const code = codes.get(request);
      done();
      if (!code) return;
      const row: ConsoleProblemRow = {
        id: randomUUID(), account_id: request.auth.account.id, mode: request.auth.mode, status: reply.statusCode, code,
        request_id: request.id, method: request.method, path: request.url.split('?')[0]!.slice(0, 500), created_at: this.clock.now().toISOString(),
      };
      this.db.insertInto('console_problems').values(row).execute()
        .catch((err) => request.log.warn({ err }, 'could not record the problem for the console debugger'));
    });
  }
}

function codeOf(payload: string): string | undefined {
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
