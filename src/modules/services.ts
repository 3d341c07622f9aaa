// The services modules publish for each other, filled in as modules register.
import type { AccountService } from './accounts/service.ts';
import type { KeyService } from './keys/service.ts';
import type { WebhookService } from './webhooks/service.ts';

export interface Services {
  accounts: AccountService;
  keys: KeyService;
  webhooks: WebhookService;
}
