// Flow operations on a live call: what the interpreter asks of the audio (speak, play,
// silence, collect digits with barge-in, record the caller), carried out on the call's RTP
// leg. Every operation runs after the transaction that ordered it commits, ends exactly
// once, and reports that end through MediaEvents.finished; `cut` ends it early (interrupt,
// or the call hung up). Audio work happens in the RTP and speech workers: here are only
// timers, events and the order of things.
import type { BridgeOp, CollectOp, ConferenceOp, ConnectOp, CutShort, HeardInput, MediaOp, MediaResult, PromptOp, RecordOp } from '../../telephony/media-ops.ts';
import type { TextToSpeech } from '../speech/text-to-speech.ts';
import type { SpeechToText, Transcription } from '../speech/speech-to-text.ts';
import { LINE_RATE } from '../../media/call-file.ts';
import { lineRateAudio } from './line-rate-audio.ts';
import { judgeUtterance, quietToEnd } from '../../telephony/end-of-utterance.ts';
import { sentencesOf } from '../speech/sentences.ts';
import { connectionMixId } from '../../telephony/conference.ts';
import { WaitSignal } from './wait-signal.ts';

/** What the operations need of a live call's leg (implemented by LiveSipCarrier over the RTP engine). */
export interface LegAudio {
  play(callId: string, pcm: Int16Array): Promise<{ interrupted: boolean }>;
  stopPlayback(callId: string): Promise<void>;
  /** Subscribes to the leg's digits and voice activity; returns the unsubscribe. */
  /** `recorded`, when the far end stopped talking on a recorded leg: the frames of its file that hold the audio up to then. */
  listen(callId: string, on: { digit?: (digit: string) => void; voice?: (talking: boolean, recorded?: number) => void }): () => void;
  /** Talk seconds so far, null when the call is not answered (or gone). */
  elapsed(callId: string): number | null;
  /** Dials a second leg and bridges it to the call until one side hangs up, `cutShort` settles or the time limit. */
  bridge(callId: string, op: BridgeOp, cutShort: Promise<CutShort>): Promise<BridgeResult>;
  /** What the leg hears on a conference bus (rtp/conference-bus.ts): the sum of `hears`, the hold tone (null), or off the bus (null mix). */
  mix(callId: string, mix: { bus: string; capacity: number; hears: string[] | null } | null): Promise<void>;
  /** Joins a conference (or a connection) mixed by node `home` over a node-to-node leg (node-legs.ts), until `cutShort` settles or `home` hangs it up. */
  joinHome(callId: string, conferenceId: string, home: string, cutShort: Promise<unknown>, onWaiting?: (waiting: boolean) => void): Promise<void>;
}

/** The conferences of live calls as the operations see them (live-conferences.ts). */
export interface ConferenceRooms {
  /** True while the conference waits for its start: its participants hear their wait audio. */
  waiting(conferenceId: string): boolean;
  /** The bus two connected calls share. */
  connectionBus(a: string, b: string): { bus: string; capacity: number };
  /** True when `home` is another node than this one (the conference is mixed there). */
  mixedElsewhere(home: string): boolean;
}

export type BridgeResult = Extract<MediaResult, { kind: 'bridge' }>;

/** A span of the call's own recording (far end on channel 0) that a `record` op captured. */
export interface CapturedSpan {
  recordingId: string;
  format: RecordOp['format'];
  start: number;
  end: number;
  /** The record verb asked for a transcript. */
  transcribe: boolean;
}

/** How a gather hears words: the call's far-end audio, and a speech-to-text endpoint. */
export interface Hearing {
  stt: SpeechToText;
  /**
   * The far end's audio between two talk times (seconds), once it is on disk; `recorded` (the
   * frames the file holds when the far end stopped talking) caps `to`, which is read off the
   * wall clock and can run a few frames ahead of the file.
   */
  farAudio(callId: string, from: number, to: number, recorded?: number): Promise<Int16Array>;
}

export interface OperationHooks {
  report(callId: string, opId: string, result: MediaResult): Promise<void>;
  heard(callId: string, input: HeardInput): Promise<void>;
  /** A `record` op ended: its span goes into the recording's sink (far end only). */
  captured(callId: string, span: CapturedSpan): void;
  log(err: Error, callId: string, opId: string): void;
}

interface Running {
  opId: string;
  cut(reason: CutShort): void;
}

/**
 * Audio kept from before voice activity said "talking": the detector needs 40 ms of speech to
 * decide, and a word's soft onset is quieter than its threshold.
 */
const PRE_ROLL_SECONDS = 0.25;

/** An utterance in talk seconds (`end` null while the caller talks), and the frames on file when it stopped (unset while it talks). */
interface Said { start: number; end: number | null; recorded?: number | undefined }

const BEEP = Int16Array.from({ length: LINE_RATE / 2 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / LINE_RATE)));

export class LiveOperations {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly leg: LegAudio,
    private readonly speech: () => TextToSpeech,
    private readonly hooks: OperationHooks,
    private readonly rooms: ConferenceRooms,
    /** Null when no speech-to-text endpoint is configured: gathers then hear digits only. */
    private readonly hearing: Hearing | null = null,
  ) {}

  /** Starts `op` (call after the ordering transaction committed). A previous op on the call is cut. */
  start(callId: string, opId: string, op: MediaOp): void {
    this.running.get(callId)?.cut('interrupted');
    let cutReason: CutShort | null = null;
    let onCut: (reason: CutShort) => void = () => {};
    const cutShort = new Promise<CutShort>((resolve) => {
      onCut = resolve;
    });
    const running: Running = {
      opId,
      cut: (reason) => {
        if (cutReason) return;
        cutReason = reason;
        onCut(reason);
        void this.leg.stopPlayback(callId).catch(() => undefined);
      },
    };
    this.running.set(callId, running);
    const ctx: OpContext = { callId, cutShort, cutReason: () => cutReason };
    void this.execute(ctx, op)
      .catch((err: Error): MediaResult => {
        this.hooks.log(err, callId, opId);
        return failedResult(op, cutReason ?? 'interrupted');
      })
      .then(async (result) => {
        if (this.running.get(callId) === running) this.running.delete(callId);
        await this.hooks.report(callId, opId, result);
      })
      .catch((err: Error) => this.hooks.log(err, callId, opId));
  }

  /** Cuts `opId` short if it is the one running on the call. */
  interrupt(callId: string, opId: string): void {
    const running = this.running.get(callId);
    if (running?.opId === opId) running.cut('interrupted');
  }

  /** The call ended: whatever runs on it finishes with `hangup`. */
  hungUp(callId: string): void {
    this.running.get(callId)?.cut('hangup');
  }

  private async execute(ctx: OpContext, op: MediaOp): Promise<MediaResult> {
    switch (op.kind) {
      case 'speak':
      case 'play':
      case 'silence':
        return { kind: op.kind, reason: (await this.prompt(ctx, op) as CutShort | null) ?? 'finished' };
      case 'collect':
        return this.collect(ctx, op);
      case 'record':
        return this.record(ctx, op);
      case 'bridge':
        return this.leg.bridge(ctx.callId, op, ctx.cutShort);
      case 'connect':
        return this.connect(ctx, op);
      case 'conference':
        return this.conference(ctx, op);
    }
  }

  /**
   * In a conference: the conferences module's mix (live-conferences.ts) says what the leg
   * hears; here the wait prompts loop while the conference waits, and the operation lasts
   * until it is cut (removed, the conference ended, hang-up).
   */
  private async conference(ctx: OpContext, op: ConferenceOp): Promise<MediaResult> {
    if (op.home && this.rooms.mixedElsewhere(op.home)) return this.conferenceElsewhere(ctx, op, op.home);
    await this.waitPrompts(ctx, op, () => this.rooms.waiting(op.conferenceId));
    return { kind: 'conference', conferenceId: op.conferenceId, reason: await ctx.cutShort };
  }

  /**
   * Mixed on another node: the call is relayed to it, which sends the room (or, for a
   * participant without a wait flow, its hold tone while it waits). A wait flow plays here,
   * while the home says the conference waits. A leg that cannot be made leaves the participant
   * seated in silence until it is removed or hangs up (logged).
   */
  private async conferenceElsewhere(ctx: OpContext, op: ConferenceOp, home: string): Promise<MediaResult> {
    const signal = op.wait ? new WaitSignal() : null;
    let over = false;
    const joined = this.leg.joinHome(ctx.callId, op.conferenceId, home, ctx.cutShort, signal ? (waiting) => signal.set(waiting) : undefined)
      .catch((err: Error) => this.hooks.log(err, ctx.callId, `conference ${op.conferenceId} node-to-node leg`))
      .finally(() => {
        over = true;
      });
    // Bounded: each round waits for the home's word, or plays the wait prompts while it says the conference waits.
    for (let round = 0; signal && round < 10_000 && !over && !ctx.cutReason(); round++) {
      if (signal.waiting) await this.waitPrompts(ctx, op, () => signal.waiting && !over);
      else await Promise.race([signal.next(), joined, ctx.cutShort]);
    }
    await joined;
    return { kind: 'conference', conferenceId: op.conferenceId, reason: await ctx.cutShort };
  }

  /** The conference's wait prompts, looped while `waiting()` (null wait: the hold tone, nothing to play). */
  private async waitPrompts(ctx: OpContext, op: ConferenceOp, waiting: () => boolean): Promise<void> {
    try {
      // Bounded: each round plays the wait prompts once (a round of only cut prompts ends it too).
      for (let round = 0; op.wait && round < 10_000 && waiting() && !ctx.cutReason(); round++) {
        for (const prompt of op.wait) {
          if (!waiting() || (await this.prompt(ctx, prompt)) !== null) break;
        }
      }
    } catch (err) {
      // Wait audio that cannot be made (speech synthesis failed) leaves the hold tone, not the conference.
      this.hooks.log(err as Error, ctx.callId, `conference ${op.conferenceId} wait audio`);
    }
  }

  /**
   * Connected to another call: each hears the other on the connection's bus (room for a
   * supervisor, whose monitor remixes the bus through live-conferences.ts), until cut, or the
   * time limit.
   */
  private async connect(ctx: OpContext, op: ConnectOp): Promise<MediaResult> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<'finished'>((resolve) => {
      timer = setTimeout(() => resolve('finished'), op.timeLimitSeconds * 1000);
    });
    const ended = Promise.race([limit, ctx.cutShort]);
    if (op.home && this.rooms.mixedElsewhere(op.home)) {
      // The other call is mixed on another node: this call is relayed to it (node-legs.ts),
      // which seats the leg beside it. A leg that cannot be made, or that the other node hangs
      // up (it stopped), ends the connection, so both flows go on instead of sitting in silence.
      try {
        await this.leg.joinHome(ctx.callId, connectionMixId(ctx.callId, op.peerCallId), op.home, ended);
      } catch (err) {
        this.hooks.log(err as Error, ctx.callId, `connection to ${op.peerCallId} over a node-to-node leg`);
      } finally {
        clearTimeout(timer);
      }
      return { kind: 'connect', reason: ctx.cutReason() ?? 'finished' };
    }
    const bus = this.rooms.connectionBus(ctx.callId, op.peerCallId);
    await this.leg.mix(ctx.callId, { ...bus, hears: [op.peerCallId] });
    try {
      return { kind: 'connect', reason: await ended };
    } finally {
      clearTimeout(timer);
      await this.leg.mix(ctx.callId, null).catch(() => undefined);
    }
  }

  /** Plays one prompt to its end; returns why it stopped early, or null when it finished. */
  private async prompt(ctx: OpContext, op: PromptOp, stop?: () => boolean): Promise<CutShort | 'barged' | null> {
    const pieces = this.audioOf(op);
    const times = op.kind === 'silence' ? 1 : Math.max(1, op.loop);
    for (let i = 0; i < times; i++) {
      // Each piece is queued on the leg as soon as it is synthesised, so the first sentence
      // plays while the next are made and they follow each other without a gap; stopping
      // playback (barge-in, interrupt) drops the whole queue.
      let interrupted = false;
      const plays: Promise<unknown>[] = [];
      for (const piece of pieces) {
        const pcm = await piece;
        if (ctx.cutReason()) return ctx.cutReason();
        if (stop?.()) return 'barged';
        if (interrupted) break;
        plays.push(this.leg.play(ctx.callId, pcm).then((played) => {
          if (played.interrupted) interrupted = true;
        }));
      }
      await Promise.all(plays);
      if (ctx.cutReason()) return ctx.cutReason();
      if (interrupted) return stop?.() ? 'barged' : 'interrupted';
    }
    return null;
  }

  /** The prompt's audio in pieces (a `bySentence` prompt's sentences), all started now. */
  private audioOf(op: PromptOp): Promise<Int16Array>[] {
    if (op.kind === 'silence') return [Promise.resolve(new Int16Array(Math.round(op.seconds * LINE_RATE)))];
    if (op.kind !== 'speak') return [lineRateAudio(op.path)];
    const texts = op.bySentence ? sentencesOf(op.text) : [op.text];
    const pieces = texts.map((text) => this.speech().synthesize(text, { language: op.language, voice: op.voice }));
    // A prompt cut short leaves later sentences unplayed: their failures are not the caller's problem.
    for (const piece of pieces) piece.catch(() => undefined);
    return pieces;
  }

  /**
   * Digits and/or speech while the prompts play. Speech is an utterance: from voice activity
   * (less a short pre-roll) until `speechTimeoutSeconds` of quiet; its audio, read back from
   * the call's recording, goes to the speech-to-text endpoint. An utterance heard as no words
   * (a cough, line noise) is not input: the gather keeps listening. With `endOfUtterance:
   * 'words'` the words are recognised at every pause and judged (end-of-utterance.ts) to choose
   * the quiet that ends the line; the pause's transcript is the line's when it does.
   */
  private async collect(ctx: OpContext, op: CollectOp): Promise<MediaResult> {
    const hearing = op.speech ? this.hearing : null;
    let digits = '';
    let prompting = true;
    let barged = false;
    let utterance: Said | null = null;
    type End = 'num_digits' | 'finish_key' | 'timeout' | 'speech';
    let done: ((reason: End) => void) | null = null;
    let timer: NodeJS.Timeout | undefined;
    let quiet: NodeJS.Timeout | undefined;
    // Counts pauses and restarts: a partial transcript is used only for the pause it was asked for.
    let pauses = 0;
    type Partial = { pause: number; heard: Transcription | null };
    let partial: Partial | null = null;
    const endAfter = (seconds: number) => {
      clearTimeout(quiet);
      quiet = setTimeout(() => done?.('speech'), Math.max(0, seconds) * 1000);
    };
    const judgePause = (said: Said) => {
      const pause = ++pauses;
      const quietAt = Date.now();
      // Until the words are known the longest wait stands.
      endAfter(quietToEnd('incomplete', op.speechTimeoutSeconds));
      void this.transcribe(ctx.callId, hearing!, said, op.hints).then((heard) => {
        if (pause !== pauses) return;
        partial = { pause, heard };
        const wait = heard === null ? op.speechTimeoutSeconds : quietToEnd(judgeUtterance(heard.text), op.speechTimeoutSeconds);
        endAfter(wait - (Date.now() - quietAt) / 1000);
      });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => done?.('timeout'), op.timeoutSeconds * 1000);
    };
    let ended = new Promise<End>((resolve) => {
      done = resolve;
    });
    const barge = () => {
      barged = true;
      void this.leg.stopPlayback(ctx.callId).catch(() => undefined);
    };
    const unlisten = this.leg.listen(ctx.callId, {
      digit: (digit) => {
        if (!op.dtmf) return;
        if (prompting) {
          // Without barge-in, keys pressed over the prompt are not input.
          if (!op.bargeIn) return;
          barge();
        }
        void this.hooks.heard(ctx.callId, { kind: 'dtmf', digits: digit }).catch(() => undefined);
        if (op.finishOnKey !== '' && digit === op.finishOnKey) return done?.('finish_key');
        digits += digit;
        if (op.numDigits !== undefined && digits.length >= op.numDigits) return done?.('num_digits');
        if (!prompting) arm();
      },
      voice: hearing ? (talking, recorded) => {
        const now = this.leg.elapsed(ctx.callId);
        if (now === null) return;
        if (talking) {
          // Without barge-in, talking over the prompt is not input either.
          if (prompting && !op.bargeIn) return;
          if (prompting) barge();
          clearTimeout(timer);
          clearTimeout(quiet);
          pauses++;
          partial = null;
          if (utterance) utterance.end = null;
          else utterance = { start: Math.max(0, now - PRE_ROLL_SECONDS), end: null };
          utterance.recorded = undefined;
        } else if (utterance) {
          const current = utterance;
          current.end = now;
          current.recorded = recorded;
          if (op.endOfUtterance === 'words') judgePause({ ...current });
          else endAfter(op.speechTimeoutSeconds);
        }
      } : undefined,
    });
    try {
      for (const prompt of op.prompts) {
        const stopped = await this.prompt(ctx, prompt, () => barged);
        if (stopped === 'hangup' || (stopped === 'interrupted' && !barged)) return collectResult(digits, stopped);
        if (barged) break;
      }
      prompting = false;
      if (ctx.cutReason()) return collectResult(digits, ctx.cutReason() as CutShort);
      // Input that already completed the gather during the prompts ends it now.
      if (op.numDigits !== undefined && digits.length >= op.numDigits) return collectResult(digits, 'num_digits');
      if (!utterance) arm();
      // Bounded: each round either ends the gather or drops one utterance heard as no words.
      for (let round = 0; round < 100; round++) {
        const reason = await Promise.race([ended, ctx.cutShort]);
        if (reason !== 'speech') return collectResult(digits, reason);
        const said = utterance as Said | null;
        utterance = null;
        // Set by judgePause's callback (TypeScript cannot see that assignment from here).
        const last = partial as Partial | null;
        const judged = last?.pause === pauses ? last.heard : null;
        pauses++;
        partial = null;
        const heard = judged ?? await Promise.race([this.transcribe(ctx.callId, hearing!, said!, op.hints), ctx.cutShort]);
        if (typeof heard === 'string') return collectResult(digits, heard);
        if (heard && heard.text !== '') {
          void this.hooks.heard(ctx.callId, { kind: 'speech', text: heard.text }).catch(() => undefined);
          const utteranceTimes = { start: said!.start, end: said!.end ?? said!.start };
          return { kind: 'collect', digits, speech: heard.text, confidence: heard.confidence, reason: 'speech', utterance: utteranceTimes };
        }
        // Nothing intelligible: listen again, with the full timeout.
        ended = new Promise<End>((resolve) => {
          done = resolve;
        });
        arm();
      }
      return collectResult(digits, 'timeout');
    } finally {
      clearTimeout(timer);
      clearTimeout(quiet);
      unlisten();
    }
  }

  /** The utterance's words, or null when the endpoint failed (logged; the gather listens on and ends by its timeout). */
  private async transcribe(callId: string, hearing: Hearing, said: Said, hints: string[]) {
    try {
      const end = said.end ?? this.leg.elapsed(callId) ?? said.start;
      const audio = await hearing.farAudio(callId, said.start, end, said.recorded);
      return await hearing.stt.transcribe(audio, { hints });
    } catch (err) {
      this.hooks.log(err as Error, callId, 'speech-to-text');
      return null;
    }
  }

  private async record(ctx: OpContext, op: RecordOp): Promise<MediaResult> {
    if (op.beep) {
      const { interrupted } = await this.leg.play(ctx.callId, BEEP);
      if (ctx.cutReason() || interrupted) return { kind: 'record', reason: ctx.cutReason() ?? 'interrupted', durationSeconds: 0 };
    }
    const start = this.leg.elapsed(ctx.callId) ?? 0;
    let silenceTimer: NodeJS.Timeout | undefined;
    let finish: (reason: 'finish_key' | 'silence' | 'max_length') => void = () => {};
    const ended = new Promise<'finish_key' | 'silence' | 'max_length'>((resolve) => {
      finish = resolve;
    });
    const quiet = () => {
      clearTimeout(silenceTimer);
      if (op.silenceTimeoutSeconds > 0) silenceTimer = setTimeout(() => finish('silence'), op.silenceTimeoutSeconds * 1000);
    };
    const maxTimer = setTimeout(() => finish('max_length'), op.maxSeconds * 1000);
    quiet();
    const unlisten = this.leg.listen(ctx.callId, {
      digit: (digit) => {
        if (op.finishOnKey !== '' && op.finishOnKey.includes(digit)) finish('finish_key');
      },
      voice: (talking) => (talking ? clearTimeout(silenceTimer) : quiet()),
    });
    try {
      const reason = await Promise.race([ended, ctx.cutShort]);
      const end = Math.max(start, reason === 'max_length' ? start + op.maxSeconds : (this.leg.elapsed(ctx.callId) ?? start));
      // A recording cut by interrupt is still kept; a hang-up keeps what was said before it.
      this.hooks.captured(ctx.callId, { recordingId: op.recordingId, format: op.format, start, end, transcribe: op.transcribe === true });
      return { kind: 'record', reason, durationSeconds: Math.round((end - start) * 1000) / 1000 };
    } finally {
      clearTimeout(maxTimer);
      clearTimeout(silenceTimer);
      unlisten();
    }
  }
}

interface OpContext {
  callId: string;
  cutShort: Promise<CutShort>;
  cutReason(): CutShort | null;
}

function collectResult(digits: string, reason: 'num_digits' | 'finish_key' | 'timeout' | 'speech' | CutShort): MediaResult {
  return { kind: 'collect', digits, speech: null, confidence: null, reason };
}

function failedResult(op: MediaOp, reason: CutShort): MediaResult {
  switch (op.kind) {
    case 'collect':
      return collectResult('', reason);
    case 'record':
      return { kind: 'record', reason, durationSeconds: 0 };
    case 'bridge':
      return { kind: 'bridge', outcome: 'failed', talkSeconds: 0 };
    case 'conference':
      return { kind: 'conference', conferenceId: op.conferenceId, reason };
    default:
      return { kind: op.kind, reason };
  }
}
