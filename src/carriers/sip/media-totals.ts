// What this node's ended calls received and lost, summed (operators and bench:sip read it),
// and each call's own figures logged as it ends: a call with nothing received is one-way audio.
import type { Platform } from '../../platform/context.ts';
import type { SessionStats } from '../rtp/protocol.ts';
import { rtpPackets, rtpPacketsLost } from '../../platform/metrics.ts';

export interface MediaTotals {
  calls: number;
  packetsReceived: number;
  packetsSent: number;
  packetsLost: number;
  latePackets: number;
  concealedSamples: number;
}

export class MediaCounters {
  private readonly totals: MediaTotals = { calls: 0, packetsReceived: 0, packetsSent: 0, packetsLost: 0, latePackets: 0, concealedSamples: 0 };

  constructor(private readonly log: Platform['log']) {}

  /** One ended call's media counters: summed, and logged. */
  count(callId: string, stats: SessionStats): void {
    this.totals.calls++;
    this.totals.packetsReceived += stats.packetsReceived;
    this.totals.packetsSent += stats.packetsSent;
    this.totals.packetsLost += stats.packetsLost;
    this.totals.latePackets += stats.latePackets;
    this.totals.concealedSamples += stats.concealedSamples;
    // Prometheus gets the same per-leg totals the media worker already kept: never a per-packet call on this thread.
    rtpPackets.inc({ direction: 'received' }, stats.packetsReceived);
    rtpPackets.inc({ direction: 'sent' }, stats.packetsSent);
    rtpPacketsLost.inc(stats.packetsLost);
    if (stats.packetsReceived === 0) this.log.warn({ call: callId, media: stats }, 'sip: call ended without receiving any RTP (one-way audio?)');
    else this.log.info({ call: callId, media: stats }, 'sip: call media');
  }

  /** The sums so far (a copy). */
  snapshot(): MediaTotals {
    return { ...this.totals };
  }
}
