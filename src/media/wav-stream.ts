// A live call's own file (call-file.ts) written while the call runs, in bounded memory, by a
// caller that must never wait: the media clock. Frames are interleaved into a fixed chunk that
// goes to the file writer when full (asynchronously, one write after another), and the sizes
// are patched in at the end. If the disk falls so far behind that `maxPendingChunks` writes
// are queued, further audio is dropped and counted rather than growing the heap without bound.
// Samples are stored through a 16-bit view of the chunk (one typed-array store each, not a
// bounds-checked Buffer.writeInt16LE call: with hundreds of recorded calls that was a fifth of
// the media thread's CPU).
import { WavFileWriter } from './wav-file-writer.ts';
import { CALL_FILE_FORMAT } from './call-file.ts';

const CHANNELS = CALL_FILE_FORMAT.channels;

export interface WavStreamResult {
  path: string;
  frames: number;
  droppedFrames: number;
}

export class WavStreamWriter {
  /** The chunk being filled: interleaved samples (host byte order). */
  private samples: Int16Array;
  private used = 0;
  private frames = 0;
  private droppedFrames = 0;
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  private constructor(private readonly path: string, private readonly file: WavFileWriter, private readonly chunkFrames: number, private readonly maxPendingChunks: number) {
    this.samples = new Int16Array(chunkFrames * CHANNELS);
  }

  /** @param chunkFrames frames per disk write (4000 = half a second, 16 KiB) */
  static async create(path: string, chunkFrames = 4000, maxPendingChunks = 8): Promise<WavStreamWriter> {
    return new WavStreamWriter(path, await WavFileWriter.growing(path, CALL_FILE_FORMAT), chunkFrames, maxPendingChunks);
  }

  /** Appends one frame per sample index: left from `left`, right from `right` (same length). */
  write(left: Int16Array, right: Int16Array): void {
    let i = 0;
    while (i < left.length) {
      if (this.used === this.samples.length && !this.flushChunk()) {
        this.droppedFrames += left.length - i;
        return;
      }
      const count = Math.min((this.samples.length - this.used) / CHANNELS, left.length - i);
      const samples = this.samples;
      let at = this.used;
      for (let k = i; k < i + count; k++) {
        samples[at++] = left[k] as number;
        samples[at++] = right[k] as number;
      }
      this.used = at;
      this.frames += count;
      i += count;
    }
  }

  /**
   * Sends what is buffered to the disk now rather than when its chunk fills, and returns the
   * frames written or queued so far (what the file holds once the queued writes are done).
   */
  flush(): number {
    if (!this.flushChunk()) return this.frames - this.used / CHANNELS;
    return this.frames;
  }

  async close(): Promise<WavStreamResult> {
    await this.tail;
    this.flushChunk();
    await this.tail;
    if (this.failure) {
      await this.file.release();
      throw this.failure;
    }
    await this.file.finish();
    return { path: this.path, frames: this.frames, droppedFrames: this.droppedFrames };
  }

  private flushChunk(): boolean {
    if (this.used === 0) return true;
    if (this.pending >= this.maxPendingChunks) return false;
    const data = this.samples.subarray(0, this.used);
    this.pending++;
    this.tail = this.tail.then(async () => {
      try {
        if (!this.failure) await this.file.writeInterleaved(data);
      } catch (error) {
        this.failure = error as Error;
      } finally {
        this.pending--;
      }
    });
    // The chunk in flight belongs to the write now; continue in a fresh one.
    this.samples = new Int16Array(this.chunkFrames * CHANNELS);
    this.used = 0;
    return true;
  }
}
