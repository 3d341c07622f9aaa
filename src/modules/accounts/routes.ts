import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { problemResponses } from '../../platform/schemas.ts';
import { AccountWithUsageSchema } from './schema.ts';
import { presentAccountWithUsage } from './service.ts';

export function accountRoutes(app: App, { services, platform }: ModuleContext): void {
  app.get('/v1/account', {
    config: { scope: 'account:read' },
    schema: {
      operationId: 'getAccount',
      tags: ['Account'],
      summary: 'Show the account: plan, limits and current usage',
      response: { 200: AccountWithUsageSchema, ...problemResponses() },
    },
  }, (request) => {
    // Synchronous when the active-call count is cached: this is the API's most frequent read.
    const { account, mode, rateLimit } = request.auth;
    const present = (concurrentCalls: number) => presentAccountWithUsage(account, platform.clock, mode, {
      requests_remaining: rateLimit.remaining,
      rate_limit_reset_seconds: rateLimit.resetSeconds,
      concurrent_calls: concurrentCalls,
    });
    const count = services.accounts.activeCalls(account.id, mode);
    return typeof count === 'number' ? present(count) : count.then(present);
  });
}
