// Conferences of live calls, and live calls connected to each other (a queue's dequeue to a
// call in progress): both are mixes on a conference bus of the RTP engine (rtp/conference-bus.ts),
// so the audio is summed in the media workers and never passes this thread. Here is only the
// bookkeeping: the conferences module hands over each conference's seats as they change
// (ConferenceMix, in the transaction that changed them), and once that commits every seated
// leg of this node is told whom it hears (telephony/conference.ts `hears`), who joined or
// left with a beep is beeped to the others, and a start ends the wait audio. A recorded
// conference's room is tapped in a media worker (rtp/room-tap.ts), with the announcements and
// beeps played over it, and copied into its recording when it stops (room-recording.ts).
//
// Several nodes: a conference is mixed on its home node (ConferenceMix.home, its first
// participant's). A change committed on another node is told to the home (node-commands.ts,
// in the same transaction) and applied there; a participant whose call another node holds
// is on the home's bus through a node-to-node media leg (node-legs.ts) named after its call.
// An announcement's file made through another node is told to the home by its URL, and the
// home fetches it into its own audio cache (the same URL policy and cache as a flow's `play`).
import type { Trx } from '../../store/transaction.ts';
import type { ConferenceMedia, PromptAudio, RecordingSinks } from '../media-port.ts';
import type { WavStreamResult } from '../../media/wav-stream.ts';
import { copyRoom } from './room-recording.ts';
import { CONNECTION_SEATS, connectionMixId, connectionPeer, hears, type ConferenceMix, type ConferenceSeat } from '../../telephony/conference.ts';
import type { PlayOp, RecordingFormat, SpeakOp } from '../../telephony/media-ops.ts';
import { LINE_RATE } from '../../media/call-file.ts';
import type { TextToSpeech } from '../speech/text-to-speech.ts';
import { lineRateAudio } from './line-rate-audio.ts';
import type { ConferenceMessage, ForwardedPlay } from './node-commands.ts';

/** The other media nodes, as conferences need them (NodeCommands); absent, every conference is this node's. */
export interface ConferenceHomes {
  /** True when `node` is another live node (on SQLite every node is this one). */
  isOther(node: string | null | undefined): boolean;
  /** Tells `node`, the conference's home, of a change, committed with `trx`. */
  tell(trx: Trx, node: string, conferenceId: string, message: ConferenceMessage): Promise<void>;
}

/** What the mixing needs of this node's legs (implemented over the RTP engine by LiveSipCarrier). */
export interface ConferenceLegs {
  /** The call has an answered leg on this node that still runs. */
  here(callId: string): boolean;
  /** A participant seated here over a node-to-node leg is told whether its conference waits (a no-op for this node's own legs). */
  tellWaiting(callId: string, waiting: boolean): void;
  /** engine.mix: what the leg hears on `bus`, the hold tone (`hears` null), or off its bus (null). */
  mix(callId: string, mix: { bus: string; capacity: number; hears: string[] | null } | null): Promise<void>;
  play(callId: string, pcm: Int16Array): Promise<{ interrupted: boolean }>;
  stopPlayback(callId: string): Promise<void>;
  /** engine.tap: records the room of `bus` (the legs in `hears`) into `path`; again: changes whom it hears. */
  tap(recordingId: string, tap: { bus: string; capacity: number; hears: string[]; path: string }): Promise<void>;
  stopTap(recordingId: string): Promise<WavStreamResult | null>;
  /** engine.tapOverlay: `pcm` is heard over the room the tap records (an announcement, a beep). */
  tapOverlay(recordingId: string, pcm: Int16Array): Promise<void>;
  /** Where a conference recording's tap writes (this node's media directory). */
  roomFile(recordingId: string): string;
}

interface RoomRecording {
  recordingId: string;
  accountId: string;
  format: RecordingFormat;
}

/** Room on a conference's bus: the conference verb's most participants (100), with a margin. */
const CONFERENCE_BUS_CAPACITY = 128;

/** The join and leave beep: 0.25 s at 880 Hz, quieter than speech. */
const BEEP = Int16Array.from({ length: LINE_RATE / 4 }, (_, i) => Math.round(5000 * Math.sin((2 * Math.PI * 880 * i) / LINE_RATE)));

export class LiveConferences implements ConferenceMedia {
  /** Each conference's mix as last applied (its seats, to see who joined and left). */
  private readonly applied = new Map<string, ConferenceMix>();
  /** The recording each recorded conference is taking now. */
  private readonly recordings = new Map<string, RoomRecording>();

  constructor(
    private readonly legs: ConferenceLegs,
    private readonly speech: () => TextToSpeech,
    /** The flows' audio cache of this node: where an announcement told by another node is fetched. */
    private readonly audio: () => PromptAudio,
    private readonly sinks: () => RecordingSinks,
    private readonly log: (err: Error, subject: string) => void,
    private readonly homes: ConferenceHomes | null = null,
  ) {}

  /** The node that mixes `mix` when it is another one (the change is told to it), else null. */
  private homeElsewhere(mix: ConferenceMix): string | null {
    return mix.home && this.homes?.isOther(mix.home) ? mix.home : null;
  }

  /** Another node told us of a conference we mix (it committed the change). */
  async hear(message: ConferenceMessage): Promise<void> {
    switch (message.kind) {
      case 'mix':
        return this.apply(message.mix);
      case 'announce':
        return this.announceHere(message.mix, message.prompt);
      case 'start_capture':
        return this.startRecording(message.mix, message.recordingId, message.format);
      case 'stop_capture':
        return this.stopRecording(message.mix, message.recordingId);
    }
  }

  /**
   * A participant's node-to-node leg arrived: the conference's mix as last applied takes it in.
   * A call connected to one of ours (a queue's dequeue) with no monitor's mix applied hears its
   * peer on their connection's bus, as the peer's own connect operation has it hear this one.
   */
  legArrived(conferenceId: string, callId: string): void {
    const mix = this.applied.get(conferenceId);
    if (mix) {
      this.apply(mix);
      // A seat whose leg came after its mix: told now (a leg with no seat hears nothing, and is told nothing).
      if (mix.status !== 'completed' && mix.seats.some((seat) => seat.callId === callId)) this.legs.tellWaiting(callId, mix.status === 'waiting');
      return;
    }
    const peer = connectionPeer(conferenceId, callId);
    if (peer) void this.legs.mix(callId, { ...connectionBus(callId, peer), hears: [peer] }).catch((err: Error) => this.log(err, `${conferenceId} node-to-node leg`));
  }

  /** True while the conference waits for a start_on_enter participant (its legs hear the wait audio). */
  waiting(conferenceId: string): boolean {
    return this.applied.get(conferenceId)?.status === 'waiting';
  }

  async mixChanged(trx: Trx, mix: ConferenceMix): Promise<void> {
    const home = this.homeElsewhere(mix);
    if (home) return this.homes!.tell(trx, home, mix.conferenceId, { kind: 'mix', mix });
    trx.afterCommit(() => this.apply(mix));
  }

  async announce(trx: Trx, mix: ConferenceMix, prompt: SpeakOp | PlayOp): Promise<void> {
    const home = this.homeElsewhere(mix);
    // The file is in this node's audio cache, not the home's: the home is told its URL and fetches it.
    if (home) return this.homes!.tell(trx, home, mix.conferenceId, { kind: 'announce', mix, prompt: forwarded(prompt) });
    trx.afterCommit(() => void (prompt.kind === 'speak' ? this.spoken(prompt) : lineRateAudio(prompt.path))
      .then((once) => this.overRoom(mix, once, prompt.loop))
      .catch((err: Error) => this.log(err, `${mix.conferenceId} announcement`)));
  }

  /**
   * On the home node, an announcement another node committed: its audio is made ready here
   * first (spoken, or its file fetched into this node's cache), so a failure there fails the
   * message and it is retried (nothing was heard yet, and a fetch already cached is not
   * repeated). The playing is not awaited: a message retried after its audio started is never
   * heard twice, and the conference's next message (a mute, a leave) is not held up for the
   * announcement's length.
   */
  private async announceHere(mix: ConferenceMix, prompt: SpeakOp | ForwardedPlay): Promise<void> {
    const once = prompt.kind === 'speak' ? await this.spoken(prompt) : await lineRateAudio(await this.fetched(prompt.url, mix));
    void this.overRoom(mix, once, prompt.loop).catch((err: Error) => this.log(err, `${mix.conferenceId} announcement`));
  }

  private spoken(prompt: SpeakOp): Promise<Int16Array> {
    return this.speech().synthesize(prompt.text, { language: prompt.language, voice: prompt.voice });
  }

  /** Where this node's cache holds the file at `url`, fetched now under the URL policy of the conference's mode if it is not there yet. */
  private async fetched(url: string, mix: ConferenceMix): Promise<string> {
    const got = await this.audio().fetch(url, mix.mode);
    if (!got.ok) throw new Error(`the announcement's audio could not be fetched on the conference's home node: ${got.detail}`);
    return got.audio.path;
  }

  async startCapture(trx: Trx, mix: ConferenceMix, recordingId: string, format: RecordingFormat): Promise<void> {
    const home = this.homeElsewhere(mix);
    if (home) return this.homes!.tell(trx, home, mix.conferenceId, { kind: 'start_capture', mix, recordingId, format });
    trx.afterCommit(() => this.startRecording(mix, recordingId, format));
  }

  async stopCapture(trx: Trx, mix: ConferenceMix, recordingId: string): Promise<void> {
    const home = this.homeElsewhere(mix);
    if (home) return this.homes!.tell(trx, home, mix.conferenceId, { kind: 'stop_capture', mix, recordingId });
    trx.afterCommit(() => this.stopRecording(mix, recordingId));
  }

  private startRecording(mix: ConferenceMix, recordingId: string, format: RecordingFormat): void {
    this.recordings.set(mix.conferenceId, { recordingId, accountId: mix.accountId, format });
    this.tapRoom(this.applied.get(mix.conferenceId) ?? mix).catch((err: Error) => this.log(err, `${mix.conferenceId} recording ${recordingId}`));
  }

  private stopRecording(mix: ConferenceMix, recordingId: string): void {
    const recording = this.recordings.get(mix.conferenceId);
    this.recordings.delete(mix.conferenceId);
    void this.finishRecording(recording ?? { recordingId, accountId: mix.accountId, format: { channels: 1, sampleRate: LINE_RATE } })
      .catch((err: Error) => this.log(err, `${mix.conferenceId} recording ${recordingId}`));
  }

  /** The room tap hears who the room hears now (nobody muted, held or coaching). */
  private tapRoom(mix: ConferenceMix): Promise<void> {
    const recording = this.recordings.get(mix.conferenceId);
    if (!recording) return Promise.resolve();
    const heard = mix.status === 'in_progress' ? mix.seats.filter((seat) => this.legs.here(seat.callId) && hears(null, seat)).map((s) => s.callId) : [];
    return this.legs.tap(recording.recordingId, { bus: mix.conferenceId, capacity: CONFERENCE_BUS_CAPACITY, hears: heard, path: this.legs.roomFile(recording.recordingId) });
  }

  private async finishRecording(recording: RoomRecording): Promise<void> {
    const sink = await this.sinks().open(recording.accountId, recording.recordingId, recording.format);
    const file = await this.legs.stopTap(recording.recordingId);
    if (!file) return sink.abort('the conference\'s audio is not on this node (its recording started on another, or the node restarted)');
    await copyRoom(file.path, file.frames, sink, recording.format);
  }

  /**
   * Tells every seated leg of this node whom it hears now, takes those who left off the bus,
   * ends the wait audio when the conference starts, and beeps joins and leaves. The commands
   * are all sent before any is awaited, so two changes committed one after the other reach
   * each worker in that order.
   */
  private apply(mix: ConferenceMix): void {
    const before = this.applied.get(mix.conferenceId);
    if (mix.status === 'completed') this.applied.delete(mix.conferenceId);
    else this.applied.set(mix.conferenceId, mix);
    const seats = mix.seats.filter((seat) => this.legs.here(seat.callId));
    const done: Promise<unknown>[] = [];
    const seated = new Set(seats.map((seat) => seat.callId));
    const previous = new Set((before?.seats ?? []).map((seat) => seat.callId));
    for (const gone of before?.seats ?? []) {
      if (!seated.has(gone.callId) && this.legs.here(gone.callId)) done.push(this.legs.mix(gone.callId, null));
    }
    for (const listener of seats) {
      const heard = mix.status === 'in_progress' && !listener.hold ? seats.filter((speaker) => hears(listener, speaker)).map((s) => s.callId) : null;
      done.push(this.legs.mix(listener.callId, { bus: mix.conferenceId, capacity: CONFERENCE_BUS_CAPACITY, hears: heard }));
      // The start ends the wait prompts (the conference operation stops looping them).
      if (before?.status === 'waiting' && mix.status === 'in_progress') done.push(this.legs.stopPlayback(listener.callId));
      // A participant of another node plays its own wait flow there: it is told when it is seated, and when the waiting ends.
      if ((before?.status !== mix.status || !previous.has(listener.callId)) && mix.status !== 'completed') this.legs.tellWaiting(listener.callId, mix.status === 'waiting');
    }
    done.push(this.tapRoom(mix));
    if (mix.status === 'in_progress') {
      // Of every seat, not only this node's: a participant of another node whose leg has not
      // arrived yet is beeped in all the same.
      const joined = mix.seats.filter((seat) => seat.beep && !previous.has(seat.callId));
      const left = (before?.seats ?? []).filter((seat) => seat.beep && !mix.seats.some((s) => s.callId === seat.callId));
      for (const mover of [...joined, ...left]) done.push(...this.beepOthers(seats, mover));
      // The room recording hears a beep as the room does.
      if (joined.length + left.length > 0) done.push(this.overTap(mix.conferenceId, BEEP));
    }
    void Promise.all(done).catch((err: Error) => this.log(err, `${mix.conferenceId} mix`));
  }

  private beepOthers(seats: ConferenceSeat[], mover: ConferenceSeat): Promise<unknown>[] {
    return seats.filter((seat) => seat.callId !== mover.callId && !seat.hold).map((seat) => this.legs.play(seat.callId, BEEP));
  }

  /** Everyone seated here and not on hold hears the announcement (`once`, `loop` times) over the room, and so does the room's recording. */
  private async overRoom(mix: ConferenceMix, once: Int16Array, loop: number): Promise<void> {
    const times = Math.max(1, loop);
    const audio = new Int16Array(once.length * times);
    for (let k = 0; k < times; k++) audio.set(once, k * once.length);
    await Promise.all([
      ...mix.seats.filter((seat) => !seat.hold && this.legs.here(seat.callId)).map((seat) => this.legs.play(seat.callId, audio)),
      this.overTap(mix.conferenceId, audio),
    ]);
  }

  /** `pcm` over the room of the conference's recording, if it is being recorded here. */
  private overTap(conferenceId: string, pcm: Int16Array): Promise<void> {
    const recording = this.recordings.get(conferenceId);
    return recording ? this.legs.tapOverlay(recording.recordingId, pcm) : Promise.resolve();
  }
}

/** An announcement as the home node is told of it: a file by its URL (the path is this node's disk). */
function forwarded(prompt: SpeakOp | PlayOp): SpeakOp | ForwardedPlay {
  if (prompt.kind === 'speak') return prompt;
  const { path: _here, ...play } = prompt;
  return play;
}

/**
 * The bus of two calls connected to each other (a queue's caller and the call that took it),
 * with room for a supervisor: a monitor's mix (telephony/conference.ts connectionMixId) is
 * applied on this same bus, so the two calls keep their slots and only whom each hears changes.
 */
export function connectionBus(a: string, b: string): { bus: string; capacity: number } {
  return { bus: connectionMixId(a, b), capacity: CONNECTION_SEATS };
}
