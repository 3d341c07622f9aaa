// The media worker: every call leg's RTP lives here, on its own thread and event loop, so
// a slow database query or a burst of HTTP on the main thread never delays a packet.
// One ticker drives all legs: first every leg takes in its frame, then every leg sends.
import { parentPort } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RtpSession } from './session.ts';
import { Ticker } from './ticker.ts';
import { bindInRange } from './port-range.ts';
import type { MediaCommand, MediaEvent, MediaReply, WorkerMessage } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('the RTP media worker must run in a worker thread');

const sessions = new Map<string, RtpSession>();
const portsInUse = new Set<number>();
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

const ticker = new Ticker(() => {
  for (const session of sessions.values()) session.tickIn();
  for (const session of sessions.values()) session.tickOut();
});

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
      sessions.set(command.id, new RtpSession(command.id, bound.port, bound.socket, emit));
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
    case 'close': {
      const leg = sessions.get(command.id);
      if (!leg) return {};
      await leg.stopRecording();
      sessions.delete(command.id);
      for (const other of sessions.values()) other.forget(leg);
      portsInUse.delete(leg.port);
      const stats = leg.close();
      if (sessions.size === 0) ticker.stop();
      return { stats };
    }
    case 'stats': {
      const engine = { sessions: sessions.size, ticker: { ...ticker.stats }, loopDelayP99Ms: loopDelay.percentile(99) / 1e6 };
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
