// This node among the media nodes sharing one database: its lease in sip_nodes (node-lease.ts),
// the commands other nodes send for the calls it holds (node-commands.ts), carried out here on
// the call as it is now, and the calls of a node that died, ended by whichever survivor found it.
import { randomUUID } from 'node:crypto';
import type { Platform } from '../../platform/context.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import { NODE_LOST } from '../../telephony/call-end.ts';
import type { VoiceCarrier } from '../carrier.ts';
import type { LiveMediaPort } from './live-media.ts';
import type { CallRecords } from './call-records.ts';
import { NodeLease } from './node-lease.ts';
import { NodeCommands, talkSecondsFromAnswer, type CallCommand, type CommandPayload, type ConferencePayload } from './node-commands.ts';

/** What a command from another node is carried out on: the carrier's own methods, on this node. */
export interface CommandTarget extends Pick<VoiceCarrier, 'hangUp' | 'transfer'> {
  media: LiveMediaPort;
}

export class Cluster {
  /** This process's identity among media nodes (a restarted node is a new one). */
  readonly nodeId = `node_${randomUUID()}`;
  /** Actions on calls held by other nodes go to them; theirs on ours come here. */
  readonly commands: NodeCommands;
  private lease: NodeLease | undefined;

  constructor(private readonly platform: Platform, private readonly records: CallRecords, private readonly leaseSeconds: number) {
    this.commands = new NodeCommands(platform, this.nodeId);
  }

  /**
   * Joins the node table (and sweeps it for dead nodes), advertising `sipAddress` for
   * node-to-node media legs, then serves the commands sent here on `target`.
   */
  async start(target: CommandTarget, sipAddress: string): Promise<void> {
    this.lease = new NodeLease(this.platform.database.db, {
      nodeId: this.nodeId, leaseSeconds: this.leaseSeconds, sipAddress,
      onDead: (nodeId) => this.endCallsOf(nodeId),
      log: (err) => this.platform.log.warn({ err }, 'sip: node lease'),
    });
    await this.lease.start();
    await this.commands.serve((payload) => this.carryOut(target, payload), (payload) => this.hear(target, payload));
  }

  /** Where `nodeId` takes node-to-node media legs (null: gone, or not started yet). */
  async addressOf(nodeId: string): Promise<string | null> {
    return (await this.lease?.addressOf(nodeId)) ?? null;
  }

  /** Another node changed a conference this node mixes: its media follows here. */
  private async hear(target: CommandTarget, { message }: ConferencePayload): Promise<void> {
    await target.media.conferences.hear(message);
  }

  async stop(): Promise<void> {
    await this.commands.stop();
    await this.lease?.stop().catch((err: Error) => this.platform.log.warn({ err }, 'sip: leaving the node table'));
  }

  ownerOf(call: CallRef): { node: string; here: boolean } | null {
    return this.commands.ownerOf(call);
  }

  /** True when `call` lives on another node: the caller sends a command instead of acting. */
  elsewhere(call: CallRef): boolean {
    return this.commands.elsewhere(call);
  }

  /** Sends `command` to the node that holds `call`, committed with `trx`. */
  send(trx: Trx, call: CallRef, command: CallCommand): Promise<void> {
    return this.commands.send(trx, call, command);
  }

  /**
   * Another node acted on a call of ours: the same method runs here, on the call as it is
   * now, so its SIP and media work happens where the dialog and media are.
   */
  private async carryOut(target: CommandTarget, { callId, command }: CommandPayload): Promise<void> {
    await this.records.withCall(callId, async (trx, row) => {
      // Released from a dead node to any node: that call's dialog died with it.
      if (row.node !== this.nodeId) return;
      switch (command.kind) {
        case 'hang_up':
          await target.hangUp(trx, row);
          return;
        case 'transfer':
          return target.transfer(trx, row, command.index, command.to, command.ringTimeout);
        case 'run':
          return target.media.run(trx, row, command.opId, command.op);
        case 'interrupt':
          return target.media.interrupt(trx, row, command.opId);
        case 'dtmf':
          return target.media.sendDtmf(trx, row, command.digits);
        case 'start_capture':
          return target.media.startCapture(trx, row, command.recordingId, command.format);
        case 'pause_capture':
          return target.media.pauseCapture(trx, row, command.recordingId);
        case 'stop_capture':
          return target.media.stopCapture(trx, row, command.recordingId);
      }
    });
  }

  /**
   * A node died with calls up: their dialogs and media died with it, so they end here, by the
   * system, `failed` (answered or not) with failure.carrier_code `node_lost`; an answered
   * one keeps its talk time up to now.
   */
  private async endCallsOf(nodeId: string): Promise<void> {
    const { store } = this.records;
    const lost = await store.heldBy(nodeId);
    if (lost.length) this.platform.log.warn({ node: nodeId, calls: lost.length }, 'sip: a media node died; ending its calls');
    for (const id of lost) {
      await this.records.withCall(id, async (trx, locked) => {
        // Nothing the end of the call sets off (recordings stopping) is sent to the dead node.
        await store.hold(trx, id, null);
        const row = { ...locked, node: null };
        if (row.status !== 'queued' && row.status !== 'ringing' && row.status !== 'in_progress') return;
        const talkSeconds = talkSecondsFromAnswer(row, this.platform.clock.now().getTime()) ?? undefined;
        await this.records.signals.ended(trx, row, {
          status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'system', carrierCode: NODE_LOST, ...(talkSeconds === undefined ? {} : { talkSeconds }),
        });
      });
    }
    await inTransaction(this.platform.database.db, (trx) => this.commands.release(trx, nodeId));
  }
}
