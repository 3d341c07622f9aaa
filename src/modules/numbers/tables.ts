// Tables the numbers module owns beside `numbers` itself (src/store/platform-tables.ts,
// where migration 0004 adds `temporary_for`): the live inventory an operator imports.
import type { Mode } from '../../store/platform-tables.ts';

/**
 * Live numbers an operator already owns on a trunk, imported with `switchboard numbers
 * import --inventory`: what `GET /v1/numbers/available` searches in live mode and what
 * `POST /v1/numbers` may provision there. A released live number returns to it.
 */
export interface NumberInventoryRow {
  id: string;
  account_id: string;
  mode: Mode;
  phone_number: string;
  country: string;
  type: 'local' | 'mobile' | 'toll_free';
  capabilities: string; // JSON array
  /** Carrier bindings copied to the number when it is provisioned (migration 0011). */
  voice_trunk?: string | null;
  messaging_carrier?: string | null;
  created_at: string;
}

export interface NumbersTables {
  number_inventory: NumberInventoryRow;
}
