// The recordings module's side of the media port's streaming contract: a sink is a WAV file
// growing under the data dir (media-store.ts) while the call runs. Closing it hands the file
// to `captured` (the recording becomes ready); aborting hands the reason to `failed`.
import type { RecordingSink, RecordingSinks } from '../../carriers/index.ts';
import type { RecordingFormat } from '../../telephony/media-ops.ts';
import { WavFileWriter } from '../../media/wav-file-writer.ts';
import type { TranscriptSegment } from '../../telephony/transcript.ts';
import type { MediaStore } from './media-store.ts';

export interface CapturedFile {
  /** Relative to the media root. */
  path: string;
  durationMs: number;
  sizeBytes: number;
  transcript: TranscriptSegment[];
}

export interface SinkOwner {
  captured(recordingId: string, file: CapturedFile): Promise<void>;
  failed(recordingId: string, reason: string): Promise<void>;
}

export class FileRecordingSinks implements RecordingSinks {
  constructor(private readonly store: MediaStore, private readonly owner: SinkOwner) {}

  async open(accountId: string, recordingId: string, format: RecordingFormat, fromFrame = 0): Promise<RecordingSink> {
    const path = this.store.pathFor(accountId, recordingId);
    const writer = await WavFileWriter.open(this.store.absolute(path), format, fromFrame);
    return new FileRecordingSink(writer, path, recordingId, this.owner);
  }
}

class FileRecordingSink implements RecordingSink {
  private transcript: TranscriptSegment[] = [];
  private done = false;

  constructor(private readonly writer: WavFileWriter, private readonly path: string, private readonly recordingId: string, private readonly owner: SinkOwner) {}

  get frameCount(): number {
    return this.writer.frameCount;
  }

  write(samples: Int16Array[]): Promise<void> {
    if (this.done) throw new Error(`recording sink of ${this.recordingId} is already closed`);
    return this.writer.write(samples);
  }

  words(segments: TranscriptSegment[]): void {
    this.transcript = segments;
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const sizeBytes = await this.writer.finish();
    const durationMs = Math.round((this.writer.frameCount / this.writer.format.sampleRate) * 1000);
    await this.owner.captured(this.recordingId, { path: this.path, durationMs, sizeBytes, transcript: this.transcript });
  }

  async suspend(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.writer.release();
  }

  async abort(reason: string): Promise<void> {
    if (!this.done) await this.writer.discard();
    this.done = true;
    await this.owner.failed(this.recordingId, reason);
  }
}
