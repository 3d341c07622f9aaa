// The simulated carrier's deterministic number inventory: every +1 <area> 555 <line> number
// for the area codes below (lines 0100-9999), plus toll-free +1 8xx 555 <line>. The magic
// test destinations (+1 500 555 xxxx) are deliberately outside it.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';

export const SANDBOX_AREA_CODES = ['415', '212', '312', '646', '617', '206', '512', '303', '213', '305', '404', '702', '718', '202', '503', '612'];
export const SANDBOX_TOLL_FREE_CODES = ['800', '888', '877'];

export interface InventoryNumber {
  phone_number: string;
  country: 'US';
  type: 'local' | 'mobile' | 'toll_free';
  area_code: string;
}

/** Lines 0100-4999 are landlines (local), 5000-9999 mobile: a fixed rule so search is deterministic. */
export function inventoryEntry(areaCode: string, line: number): InventoryNumber {
  const tollFree = SANDBOX_TOLL_FREE_CODES.includes(areaCode);
  return {
    phone_number: `+1${areaCode}555${String(line).padStart(4, '0')}`,
    country: 'US',
    type: tollFree ? 'toll_free' : line >= 5000 ? 'mobile' : 'local',
    area_code: areaCode,
  };
}

/** Picks a free sandbox number at random from the inventory (a new account's first number). */
export async function pickFreeSandboxNumber(db: Kysely<Tables>, mode: Mode = 'sandbox'): Promise<InventoryNumber> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const area = SANDBOX_AREA_CODES[Math.floor(Math.random() * SANDBOX_AREA_CODES.length)]!;
    const candidate = inventoryEntry(area, 100 + Math.floor(Math.random() * 9900));
    const taken = await db.selectFrom('numbers').select('id')
      .where('phone_number', '=', candidate.phone_number).where('mode', '=', mode).where('status', '!=', 'released')
      .executeTakeFirst();
    if (!taken) return candidate;
  }
  throw new Error('the sandbox number inventory is exhausted');
}

/** What the simulator's numbers can do: toll-free numbers have no WhatsApp in the sandbox. */
export function inventoryCapabilities(type: InventoryNumber['type']): string[] {
  return type === 'toll_free' ? ['voice', 'sms', 'mms'] : ['voice', 'sms', 'mms', 'whatsapp'];
}

export interface InventoryFilter {
  country?: string | undefined;
  areaCode?: string | undefined;
  /** Digits that must appear in the number (without the leading +). */
  contains?: string | undefined;
  type?: InventoryNumber['type'] | undefined;
}

/**
 * Every inventory number matching `filter`, in a fixed order (area codes as listed, then
 * toll-free codes, lines ascending), so the same search always answers the same list.
 */
export function* searchInventory(filter: InventoryFilter): Generator<InventoryNumber> {
  if (filter.country !== undefined && filter.country.toUpperCase() !== 'US') return;
  const codes = [...SANDBOX_AREA_CODES, ...SANDBOX_TOLL_FREE_CODES]
    .filter((code) => filter.areaCode === undefined || code === filter.areaCode);
  for (const code of codes) {
    const tollFree = SANDBOX_TOLL_FREE_CODES.includes(code);
    if (filter.type === 'toll_free' && !tollFree) continue;
    if ((filter.type === 'local' || filter.type === 'mobile') && tollFree) continue;
    // Skip the half of the lines that cannot match the type (local 0100-4999, mobile 5000-9999).
    const first = filter.type === 'mobile' ? 5000 : 100;
    const last = filter.type === 'local' ? 4999 : 9999;
    for (let line = first; line <= last; line++) {
      const entry = inventoryEntry(code, line);
      if (filter.contains !== undefined && !entry.phone_number.slice(1).includes(filter.contains)) continue;
      yield entry;
    }
  }
}

/** The inventory entry for a phone number, or undefined when it is not in the sandbox inventory. */
export function findInInventory(phoneNumber: string): InventoryNumber | undefined {
  const match = /^\+1(\d{3})555(\d{4})$/.exec(phoneNumber);
  if (!match) return undefined;
  const [, code, lineText] = match;
  const line = Number(lineText);
  const known = SANDBOX_AREA_CODES.includes(code!) || SANDBOX_TOLL_FREE_CODES.includes(code!);
  return known && line >= 100 ? inventoryEntry(code!, line) : undefined;
}
