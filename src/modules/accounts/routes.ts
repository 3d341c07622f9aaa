import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { problemResponses } from '../../platform/schemas.ts';
import { AccountWithUsageSchema } from './schema.ts';
import { presentAccount } from './service.ts';

export function accountRoutes(app: App, { services, platform }: ModuleContext): void {
  app.get('/v1/account', {
    config: { scope: 'account:read' },
    schema: {
      operationId: 'getAccount',
      tags: ['Account'],
      summary: 'Show the account: plan, limits and current usage',
      response: { 200: AccountWithUsageSchema, ...problemResponses() },
    },
  }, async (request, reply) => {
    const { account, mode } = request.auth;
    const now = platform.clock.now().toISOString();
    return {
      ...presentAccount(account),
      trial_expired: account.plan === 'trial' && account.trial_ends_at !== null && account.trial_ends_at <= now,
      mode,
      usage: {
        requests_remaining: Number(reply.getHeader('x-switchboard-ratelimit-remaining') ?? 0),
        rate_limit_reset_seconds: Number(reply.getHeader('x-switchboard-ratelimit-reset') ?? 0),
        concurrent_calls: await services.accounts.activeCalls(account.id, mode),
      },
    };
  });
}
