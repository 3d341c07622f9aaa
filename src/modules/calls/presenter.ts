// A call row as the API shows it (GET, lists, event payloads). The recording ids come from
// the recordings table, so every caller passes the ids it loaded (one query per page).
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Static } from 'typebox';
import type { CallRow } from './tables.ts';
import type { CallSchema } from './schema.ts';
import { hangupReason } from './states.ts';
import type { TransferStatus } from './transfer-states.ts';
import { failure } from '../../platform/failure.ts';

export type Call = Static<typeof CallSchema>;

export interface CallTransfer {
  to: string;
  status: TransferStatus;
  requested_at: string;
  settled_at: string | null;
}

/**
 * `webhook_url` is never null: the call's own URL, else the subscription that receives its
 * events (chosen at creation), else the absolute URL where its events can be read here.
 */
export function shownWebhookUrl(row: CallRow, publicUrl: string): string {
  return row.webhook_url ?? row.subscription_webhook_url ?? `${publicUrl}/v1/events?object_id=${row.id}`;
}

/** `publicUrl` is the server's base (platform.publicUrl.base). */
export function presentCall(row: CallRow, recordingIds: string[], publicUrl: string): Call {
  return {
    id: row.id,
    object: 'call',
    mode: row.mode,
    direction: row.direction ?? 'outbound',
    status: row.status,
    from: row.from_number,
    to: row.to_number,
    recording: row.record === 1,
    recordings: recordingIds,
    webhook_url: shownWebhookUrl(row, publicUrl),
    timeout: row.timeout,
    time_limit: row.time_limit,
    metadata: JSON.parse(row.metadata),
    timestamps: JSON.parse(row.timestamps),
    answered_at: row.answered_at,
    ended_at: row.ended_at,
    duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    hangup_cause: row.hangup_cause as Call['hangup_cause'],
    hangup_source: row.hangup_source as Call['hangup_source'],
    hangup_reason: hangupReason(row),
    failure: row.status === 'completed' || row.hangup_cause === null
      ? null : failure(row.hangup_cause, hangupReason(row)!, row.carrier_code ?? null),
    transfers: JSON.parse(row.transfers) as CallTransfer[],
    sip_status: sipStatusOf(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The live SIP carrier keeps the final response code in its carrier state. */
function sipStatusOf(row: CallRow): number | null {
  if (row.carrier !== 'sip') return null;
  const state = JSON.parse(row.carrier_state) as { sip_status?: number | null };
  return state.sip_status ?? null;
}

/** Recording ids of each call, oldest first. */
export async function recordingIdsOf(db: Kysely<Tables>, callIds: string[]): Promise<Map<string, string[]>> {
  const byCall = new Map<string, string[]>(callIds.map((id) => [id, []]));
  if (callIds.length === 0) return byCall;
  const rows = await db.selectFrom('recordings').select(['id', 'call_id']).where('call_id', 'in', callIds).orderBy('id').execute();
  for (const r of rows) byCall.get(r.call_id)?.push(r.id);
  return byCall;
}

export async function presentOne(db: Kysely<Tables>, row: CallRow, publicUrl: string): Promise<Call> {
  return presentCall(row, (await recordingIdsOf(db, [row.id])).get(row.id) ?? [], publicUrl);
}
