// The plan table of the service interface, section 8. Enterprise is "custom" and
// "unlimited": we default it to 60,000 requests per minute and no concurrent-call cap,
// and any account's caps can be raised with `switchboard accounts update`.
export const PLAN_NAMES = ['trial', 'growth', 'scale', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  requestsPerMinute: number;
  /** null = unlimited */
  concurrentCalls: number | null;
}

export const PLANS: Record<PlanName, Plan> = {
  trial: { requestsPerMinute: 60, concurrentCalls: 5 },
  growth: { requestsPerMinute: 600, concurrentCalls: 50 },
  scale: { requestsPerMinute: 6000, concurrentCalls: 500 },
  enterprise: { requestsPerMinute: 60_000, concurrentCalls: null },
};

export const TRIAL_DAYS = 14;

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

export interface Limits {
  requests_per_minute: number;
  concurrent_calls: number | null;
}

/** The limits in force for an account: its plan's, unless overridden. -1 stores "unlimited". */
export function limitsOf(account: { plan: string; rate_limit_per_minute: number | null; concurrent_calls_limit: number | null }): Limits {
  const plan = PLANS[isPlanName(account.plan) ? account.plan : 'trial'];
  const concurrent = account.concurrent_calls_limit;
  return {
    requests_per_minute: account.rate_limit_per_minute ?? plan.requestsPerMinute,
    concurrent_calls: concurrent === null ? plan.concurrentCalls : concurrent < 0 ? null : concurrent,
  };
}
