// RFC 4733 telephone-events: DTMF digits carried as named events in RTP instead of tones.
// An event is one RTP timestamp; its packets repeat with a growing duration, and the last
// one (the E bit) is sent three times because packets get lost. A receiver therefore
// reports a digit once per event timestamp, whichever of its packets arrives first.

export const DTMF_DIGITS = '0123456789*#ABCD';

export interface TelephoneEvent {
  digit: string;
  end: boolean;
  volume: number;
  /** In timestamp units (samples at 8 kHz). */
  duration: number;
}

export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  const code = payload[0] as number;
  const digit = DTMF_DIGITS[code];
  if (digit === undefined) return undefined;
  return {
    digit,
    end: ((payload[1] as number) & 0x80) !== 0,
    volume: (payload[1] as number) & 0x3f,
    duration: ((payload[2] as number) << 8) | (payload[3] as number),
  };
}

export function serializeTelephoneEvent(event: TelephoneEvent): Uint8Array {
  const code = DTMF_DIGITS.indexOf(event.digit.toUpperCase());
  if (code < 0) throw new Error(`not a DTMF digit: ${JSON.stringify(event.digit)}`);
  return Uint8Array.of(code, (event.end ? 0x80 : 0) | (event.volume & 0x3f), (event.duration >> 8) & 0xff, event.duration & 0xff);
}

/**
 * Reports each event once. Remembers the timestamps of recent events so that retransmitted
 * end packets and packets reordered behind a later event are not taken for new presses.
 */
export class DtmfDetector {
  private readonly seen: number[] = [];

  constructor(private readonly memory = 32) {}

  /** The digit when this packet starts a new event, else undefined. */
  accept(timestamp: number, payload: Uint8Array): string | undefined {
    const event = parseTelephoneEvent(payload);
    if (!event || this.seen.includes(timestamp)) return undefined;
    this.seen.push(timestamp);
    if (this.seen.length > this.memory) this.seen.shift();
    return event.digit;
  }
}

/** Samples per 20 ms packet at 8 kHz. */
const STEP = 160;

/**
 * The packets that send one digit: `durationMs` of progress packets every 20 ms, then
 * three end packets. All share the event's start timestamp; the first carries the marker.
 */
export function telephoneEventPackets(digit: string, durationMs = 160, volume = 10): { payload: Uint8Array; marker: boolean }[] {
  const total = Math.max(1, Math.round(durationMs / 20));
  const packets: { payload: Uint8Array; marker: boolean }[] = [];
  for (let i = 1; i <= total; i++) {
    packets.push({ payload: serializeTelephoneEvent({ digit, end: false, volume, duration: i * STEP }), marker: i === 1 });
  }
  for (let i = 0; i < 3; i++) {
    packets.push({ payload: serializeTelephoneEvent({ digit, end: true, volume, duration: total * STEP }), marker: false });
  }
  return packets;
}

/**
 * Reports each event once, when it ends (its first packet with the E bit), with how long the
 * key was held in milliseconds: what a media stream's `dtmf` frame carries. An event whose end
 * packets were all lost is not reported here (DtmfDetector still saw it start).
 */
export class DtmfEndDetector {
  private readonly ended: number[] = [];

  constructor(private readonly memory = 32) {}

  /** The digit and its duration when this packet ends an event not ended before, else undefined. */
  accept(timestamp: number, payload: Uint8Array): { digit: string; durationMs: number } | undefined {
    const event = parseTelephoneEvent(payload);
    if (!event || !event.end || this.ended.includes(timestamp)) return undefined;
    this.ended.push(timestamp);
    if (this.ended.length > this.memory) this.ended.shift();
    return { digit: event.digit, durationMs: Math.round(event.duration / 8) };
  }
}
