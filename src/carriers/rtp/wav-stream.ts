// A dual-channel 8 kHz PCM16 WAV file written while the call runs, in bounded memory: frames
// are interleaved into a fixed chunk that goes to disk when full (asynchronously, so the
// media clock never waits for the disk), and the RIFF sizes are patched in at the end.
// If the disk falls so far behind that `maxPendingChunks` writes are queued, further audio
// is dropped and counted rather than growing the heap without bound.
import { open, type FileHandle } from 'node:fs/promises';

const HEADER_BYTES = 44;
const CHANNELS = 2;
const SAMPLE_RATE = 8000;
const BYTES_PER_FRAME = CHANNELS * 2;

export interface WavStreamResult {
  path: string;
  frames: number;
  droppedFrames: number;
}

export function wavHeader(frames: number, channels = CHANNELS, sampleRate = SAMPLE_RATE): Buffer {
  const dataBytes = frames * channels * 2;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export class WavStreamWriter {
  private chunk: Buffer;
  private used = 0;
  private frames = 0;
  private droppedFrames = 0;
  private position = HEADER_BYTES;
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  private constructor(private readonly path: string, private readonly file: FileHandle, chunkFrames: number, private readonly maxPendingChunks: number) {
    this.chunk = Buffer.alloc(chunkFrames * BYTES_PER_FRAME);
  }

  /** @param chunkFrames frames per disk write (4000 = half a second, 16 KiB) */
  static async create(path: string, chunkFrames = 4000, maxPendingChunks = 8): Promise<WavStreamWriter> {
    const file = await open(path, 'w');
    await file.write(wavHeader(0), 0, HEADER_BYTES, 0);
    return new WavStreamWriter(path, file, chunkFrames, maxPendingChunks);
  }

  /** Appends one frame per sample index: left from `left`, right from `right` (same length). */
  write(left: Int16Array, right: Int16Array): void {
    for (let i = 0; i < left.length; i++) {
      if (this.used === this.chunk.length && !this.flushChunk()) {
        this.droppedFrames += left.length - i;
        return;
      }
      this.chunk.writeInt16LE(left[i] as number, this.used);
      this.chunk.writeInt16LE(right[i] as number, this.used + 2);
      this.used += BYTES_PER_FRAME;
      this.frames++;
    }
  }

  async close(): Promise<WavStreamResult> {
    await this.tail;
    this.flushChunk();
    await this.tail;
    try {
      if (this.failure) throw this.failure;
      await this.file.write(wavHeader(this.frames), 0, HEADER_BYTES, 0);
    } finally {
      await this.file.close();
    }
    return { path: this.path, frames: this.frames, droppedFrames: this.droppedFrames };
  }

  private flushChunk(): boolean {
    if (this.used === 0) return true;
    if (this.pending >= this.maxPendingChunks) return false;
    const data = this.chunk.subarray(0, this.used);
    const at = this.position;
    this.position += this.used;
    this.pending++;
    this.tail = this.tail.then(async () => {
      try {
        if (!this.failure) await this.file.write(data, 0, data.length, at);
      } catch (error) {
        this.failure = error as Error;
      } finally {
        this.pending--;
      }
    });
    // The buffer in flight belongs to the write now; continue in a fresh one.
    this.chunk = Buffer.alloc(this.chunk.length);
    this.used = 0;
    return true;
  }
}
