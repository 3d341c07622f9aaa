// A media worker: the RTP of the call legs the engine placed here lives on this thread and
// its event loop (the engine runs one such worker per core), so a slow database query or a
// burst of HTTP on the main thread never delays a packet.
// One ticker drives all legs. Its 20 ms period is cut into PHASES steps and each leg is
// placed in the emptiest phase when it opens, so the legs' packets leave in small bursts
// spread over the period (ticker.ts says why). In each step, first every leg of that
// phase takes in its frame, then each of them sends.
import { parentPort } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { RtpSession } from './session.ts';
import { Ticker } from './ticker.ts';
import { bindInRange } from './port-range.ts';
import { RoomTap } from './room-tap.ts';
import { LegStream } from './stream-leg.ts';
import type { MediaCommand, MediaEvent, MediaReply, WorkerMessage } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('the RTP media worker must run in a worker thread');

const sessions = new Map<string, RtpSession>();
const portsInUse = new Set<number>();
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

/** Packets of legs already closed (live legs count their own). */
const closedLegs = { packetsReceived: 0, packetsSent: 0 };

const PHASES = 4;
const phases: Set<RtpSession>[] = Array.from({ length: PHASES }, () => new Set());

/** Conference recordings taken on this worker, by recording id; they read the bus in the last phase. */
const taps = new Map<string, RoomTap>();

const ticker = new Ticker((phase) => {
  const legs = phases[phase] as Set<RtpSession>;
  for (const session of legs) session.tickIn();
  for (const session of legs) session.tickOut();
  if (phase === PHASES - 1) for (const tap of taps.values()) tap.tick();
}, 20, 10, PHASES);

function emptiestPhase(): Set<RtpSession> {
  return phases.reduce((best, phase) => (phase.size < best.size ? phase : best));
}

/** This thread's own user + system CPU (not the whole process's), from /proc/thread-self. */
function threadCpuMs(): number | null {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

const emit = (event: MediaEvent) => port.postMessage({ kind: 'event', event } satisfies WorkerMessage);

function session(id: string): RtpSession {
  const found = sessions.get(id);
  if (!found) throw new Error(`no media session ${id}`);
  return found;
}

async function handle(command: MediaCommand): Promise<MediaReply> {
  switch (command.op) {
    case 'open': {
      if (sessions.has(command.id)) throw new Error(`media session ${command.id} is already open`);
      const bound = await bindInRange(command.host, command.range, portsInUse);
      const leg = new RtpSession(command.id, bound.port, bound.socket, emit);
      sessions.set(command.id, leg);
      emptiestPhase().add(leg);
      ticker.begin();
      return { port: bound.port };
    }
    case 'remote':
      session(command.id).setRemote(command.remote);
      return {};
    case 'play':
      session(command.id).play(command.playId, command.pcm);
      return {};
    case 'stop_playback':
      session(command.id).stopPlayback();
      return {};
    case 'digits':
      session(command.id).sendDigits(command.digits);
      return {};
    case 'record':
      await session(command.id).startRecording(command.path);
      return {};
    case 'stop_recording':
      return { recording: (await session(command.id).stopRecording()) ?? null };
    case 'bridge': {
      const a = session(command.id);
      const b = command.peer === null ? undefined : session(command.peer);
      a.bridge(b);
      b?.bridge(a);
      return {};
    }
    case 'ringback':
      session(command.id).ringback(command.on);
      return {};
    case 'mix':
      session(command.id).mix(command.mix);
      return {};
    case 'tap': {
      const tap = taps.get(command.id);
      if (tap) tap.rehear(command.hears);
      else {
        taps.set(command.id, await RoomTap.open(command.buffer, command.hears, command.path));
        ticker.begin();
      }
      return {};
    }
    case 'tap_overlay':
      taps.get(command.id)?.overlay(command.pcm);
      return {};
    case 'stop_tap': {
      const tap = taps.get(command.id);
      taps.delete(command.id);
      if (sessions.size === 0 && taps.size === 0) ticker.stop();
      return { recording: (await tap?.close()) ?? null };
    }
    case 'stream': {
      const leg = session(command.id);
      const { streamId } = command.order;
      if (leg.streams.has(streamId)) throw new Error(`stream ${streamId} already runs on ${command.id}`);
      leg.streams.set(streamId, new LegStream(command.order, (report) => {
        if (report.kind !== 'started') leg.streams.delete(streamId);
        emit({ type: 'stream', id: command.id, streamId, report });
      }));
      return {};
    }
    case 'stop_stream':
      sessions.get(command.id)?.streams.get(command.streamId)?.stop(command.reason);
      return {};
    case 'stop_streams': {
      const stopping = [...sessions.values()].flatMap((leg) => [...leg.streams.values()]);
      for (const stream of stopping) stream.stop(command.reason);
      // Their `ended` reports were posted first; a server slow to close is cut off by StreamSocket.
      await Promise.all(stopping.map((stream) => stream.gone));
      return {};
    }
    case 'close': {
      const leg = sessions.get(command.id);
      if (!leg) return {};
      // The call is over: its streams send `stop` and report it (a stop the main thread sends later finds nothing).
      for (const stream of [...leg.streams.values()]) stream.stop('call_ended');
      await leg.stopRecording();
      sessions.delete(command.id);
      for (const phase of phases) phase.delete(leg);
      for (const other of sessions.values()) other.forget(leg);
      portsInUse.delete(leg.port);
      const stats = leg.close();
      closedLegs.packetsReceived += stats.packetsReceived;
      closedLegs.packetsSent += stats.packetsSent;
      if (sessions.size === 0 && taps.size === 0) ticker.stop();
      return { stats };
    }
    case 'stats': {
      let { packetsReceived, packetsSent } = closedLegs;
      for (const leg of sessions.values()) {
        packetsReceived += leg.stats.packetsReceived;
        packetsSent += leg.stats.packetsSent;
      }
      const engine = { workers: 1, sessions: sessions.size, ticker: { ...ticker.stats }, loopDelayP99Ms: loopDelay.percentile(99) / 1e6, threadCpuMs: threadCpuMs(), packetsReceived, packetsSent };
      if (command.reset) {
        loopDelay.reset();
        ticker.resetStats();
      }
      return { engine };
    }
  }
}

port.on('message', (message: { request: number; command: MediaCommand }) => {
  handle(message.command).then(
    (value) => port.postMessage({ kind: 'reply', request: message.request, ok: true, value } satisfies WorkerMessage),
    (error: Error) => port.postMessage({ kind: 'reply', request: message.request, ok: false, error: error.message } satisfies WorkerMessage),
  );
});
