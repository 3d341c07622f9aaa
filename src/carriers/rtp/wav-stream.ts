// A dual-channel 8 kHz PCM16 WAV file written while the call runs, in bounded memory: frames
// are interleaved into a fixed chunk that goes to disk when full (asynchronously, so the
// media clock never waits for the disk), and the RIFF sizes are patched in at the end.
// If the disk falls so far behind that `maxPendingChunks` writes are queued, further audio
// is dropped and counted rather than growing the heap without bound. Samples are stored
// through a 16-bit view of the chunk (one typed-array store each, not a bounds-checked
// Buffer.writeInt16LE call: with hundreds of recorded calls that was a fifth of the media
// thread's CPU); on a big-endian host the chunk is byte-swapped to little-endian before it
// is written.
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';

const HEADER_BYTES = 44;
const CHANNELS = 2;
const SAMPLE_RATE = 8000;
const BYTES_PER_FRAME = CHANNELS * 2;
const BIG_ENDIAN_HOST = endianness() === 'BE';

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
  /** The chunk seen as interleaved samples (host byte order). */
  private samples: Int16Array;
  private used = 0;
  private frames = 0;
  private droppedFrames = 0;
  private position = HEADER_BYTES;
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  private constructor(private readonly path: string, private readonly file: FileHandle, chunkFrames: number, private readonly maxPendingChunks: number) {
    this.chunk = Buffer.alloc(chunkFrames * BYTES_PER_FRAME);
    this.samples = sampleView(this.chunk);
  }

  /** @param chunkFrames frames per disk write (4000 = half a second, 16 KiB) */
  static async create(path: string, chunkFrames = 4000, maxPendingChunks = 8): Promise<WavStreamWriter> {
    const file = await open(path, 'w');
    await file.write(wavHeader(0), 0, HEADER_BYTES, 0);
    return new WavStreamWriter(path, file, chunkFrames, maxPendingChunks);
  }

  /** Appends one frame per sample index: left from `left`, right from `right` (same length). */
  write(left: Int16Array, right: Int16Array): void {
    let i = 0;
    while (i < left.length) {
      if (this.used === this.chunk.length && !this.flushChunk()) {
        this.droppedFrames += left.length - i;
        return;
      }
      const count = Math.min((this.chunk.length - this.used) / BYTES_PER_FRAME, left.length - i);
      const samples = this.samples;
      let at = this.used >> 1;
      for (let k = i; k < i + count; k++) {
        samples[at++] = left[k] as number;
        samples[at++] = right[k] as number;
      }
      this.used += count * BYTES_PER_FRAME;
      this.frames += count;
      i += count;
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
    if (BIG_ENDIAN_HOST) data.swap16();
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
    this.samples = sampleView(this.chunk);
    this.used = 0;
    return true;
  }
}

function sampleView(chunk: Buffer): Int16Array {
  return new Int16Array(chunk.buffer, chunk.byteOffset, chunk.length >> 1);
}
