// Records an inbound message at most once per carrier id. HTTP providers redeliver a webhook
// they think we missed (Meta, Twilio); the id is written in the transaction that records the
// message, so a redelivery finds it and changes nothing, and a rollback leaves room to retry.
import type { Clock } from '../../platform/clock.ts';
import type { InboundMessage, InboundSink } from '../messaging-carrier.ts';

class AlreadyRecorded extends Error {}

export async function recordInboundOnce(
  sink: InboundSink, clock: Clock, message: InboundMessage, carrierId: string,
): Promise<'received' | 'unknown_number' | 'duplicate'> {
  try {
    return await sink(message, async (trx) => {
      const seen = await trx.insertInto('carrier_inbound_seen').values({ link: message.link, carrier_message_id: carrierId, received_at: clock.now().toISOString() })
        .onConflict((oc) => oc.columns(['link', 'carrier_message_id']).doNothing()).executeTakeFirst();
      if (Number(seen.numInsertedOrUpdatedRows ?? 0n) === 0) throw new AlreadyRecorded();
    });
  } catch (err) {
    if (err instanceof AlreadyRecorded) return 'duplicate';
    throw err;
  }
}
