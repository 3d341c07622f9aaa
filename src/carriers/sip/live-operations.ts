// Flow operations on a live call: what the interpreter asks of the audio (speak, play,
// silence, collect digits with barge-in, record the caller), carried out on the call's RTP
// leg. Every operation runs after the transaction that ordered it commits, ends exactly
// once, and reports that end through MediaEvents.finished; `cut` ends it early (interrupt,
// or the call hung up). Audio work happens in the RTP and speech workers: here are only
// timers, events and the order of things.
import { readFile } from 'node:fs/promises';
import type { BridgeOp, CollectOp, CutShort, HeardInput, MediaOp, MediaResult, PromptOp, RecordOp } from '../media-port.ts';
import type { TextToSpeech } from '../speech/text-to-speech.ts';
import { LINE_RATE, readPcm16Wav, toLineRate } from '../speech/pcm.ts';

/** What the operations need of a live call's leg (implemented by LiveSipCarrier over the RTP engine). */
export interface LegAudio {
  play(callId: string, pcm: Int16Array): Promise<{ interrupted: boolean }>;
  stopPlayback(callId: string): Promise<void>;
  /** Subscribes to the leg's digits and voice activity; returns the unsubscribe. */
  listen(callId: string, on: { digit?: (digit: string) => void; voice?: (talking: boolean) => void }): () => void;
  /** Talk seconds so far, null when the call is not answered (or gone). */
  elapsed(callId: string): number | null;
  /** Dials a second leg and bridges it to the call until one side hangs up, `cutShort` settles or the time limit. */
  bridge(callId: string, op: BridgeOp, cutShort: Promise<CutShort>): Promise<BridgeResult>;
}

export type BridgeResult = Extract<MediaResult, { kind: 'bridge' }>;

/** A span of the call's own recording (far end on channel 0) that a `record` op captured. */
export interface CapturedSpan {
  recordingId: string;
  format: RecordOp['format'];
  start: number;
  end: number;
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

const BEEP = Int16Array.from({ length: LINE_RATE / 2 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / LINE_RATE)));

export class LiveOperations {
  private readonly running = new Map<string, Running>();

  constructor(private readonly leg: LegAudio, private readonly speech: () => TextToSpeech, private readonly hooks: OperationHooks) {}

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
    }
  }

  /** Plays one prompt to its end; returns why it stopped early, or null when it finished. */
  private async prompt(ctx: OpContext, op: PromptOp, stop?: () => boolean): Promise<CutShort | 'barged' | null> {
    const pcm = await this.audioOf(op);
    const times = op.kind === 'silence' ? 1 : Math.max(1, op.loop);
    for (let i = 0; i < times; i++) {
      if (ctx.cutReason()) return ctx.cutReason();
      if (stop?.()) return 'barged';
      const { interrupted } = await this.leg.play(ctx.callId, pcm);
      if (ctx.cutReason()) return ctx.cutReason();
      if (interrupted) return stop?.() ? 'barged' : 'interrupted';
    }
    return null;
  }

  private async audioOf(op: PromptOp): Promise<Int16Array> {
    if (op.kind === 'silence') return new Int16Array(Math.round(op.seconds * LINE_RATE));
    if (op.kind === 'speak') return this.speech().synthesize(op.text, { language: op.language, voice: op.voice });
    const { sampleRate, samples } = readPcm16Wav(await readFile(op.path));
    return toLineRate(samples, sampleRate);
  }

  private async collect(ctx: OpContext, op: CollectOp): Promise<MediaResult> {
    let digits = '';
    let prompting = true;
    let barged = false;
    let done: ((reason: 'num_digits' | 'finish_key' | 'timeout') => void) | null = null;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => done?.('timeout'), op.timeoutSeconds * 1000);
    };
    const ended = new Promise<'num_digits' | 'finish_key' | 'timeout'>((resolve) => {
      done = resolve;
    });
    const unlisten = this.leg.listen(ctx.callId, {
      digit: (digit) => {
        if (!op.dtmf) return;
        if (prompting) {
          // Without barge-in, keys pressed over the prompt are not input.
          if (!op.bargeIn) return;
          barged = true;
          void this.leg.stopPlayback(ctx.callId).catch(() => undefined);
        }
        void this.hooks.heard(ctx.callId, { kind: 'dtmf', digits: digit }).catch(() => undefined);
        if (op.finishOnKey !== '' && digit === op.finishOnKey) return done?.('finish_key');
        digits += digit;
        if (op.numDigits !== undefined && digits.length >= op.numDigits) return done?.('num_digits');
        if (!prompting) arm();
      },
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
      arm();
      const reason = await Promise.race([ended, ctx.cutShort]);
      return collectResult(digits, reason);
    } finally {
      clearTimeout(timer);
      unlisten();
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
      this.hooks.captured(ctx.callId, { recordingId: op.recordingId, format: op.format, start, end });
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

function collectResult(digits: string, reason: 'num_digits' | 'finish_key' | 'timeout' | CutShort): MediaResult {
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
    default:
      return { kind: op.kind, reason };
  }
}
