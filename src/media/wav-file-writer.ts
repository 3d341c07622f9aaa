// Writes a PCM16 WAV file chunk by chunk, so a recording of any length (a 12-hour call is
// 1.4 GB of stereo 8 kHz audio) never sits in memory: frames are interleaved into one small
// buffer per chunk and appended. The header's two sizes are written last. The file grows
// under `<target>.partial` and is renamed into place when finished, so a reader never sees
// half a file; reopening at a frame offset truncates there, which lets a producer that can
// regenerate its audio (the simulator) resume after a crash instead of starting over.
// A file that must be readable while it grows (a live call's own file, which recordings are
// copied out of during the call) is created in place instead (`growing`).
import { open, rename, mkdir, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BYTES_PER_SAMPLE, MAX_WAV_DATA_BYTES, WAV_HEADER_BYTES, interleave, littleEndianBytes, wavHeader, type WavFormat } from './wav.ts';

export type WavFileFormat = WavFormat;

export class WavFileWriter {
  private constructor(
    private readonly file: FileHandle,
    private readonly target: string,
    private readonly partial: string,
    readonly format: WavFileFormat,
    private frames: number,
  ) {}

  /** Opens `target`'s partial file, keeping its first `fromFrame` frames (0: a new file). */
  static async open(target: string, format: WavFileFormat, fromFrame = 0): Promise<WavFileWriter> {
    const partial = `${target}.partial`;
    await mkdir(dirname(target), { recursive: true });
    const file = await open(partial, fromFrame > 0 ? 'r+' : 'w+');
    try {
      const blockAlign = format.channels * BYTES_PER_SAMPLE;
      const { size } = await file.stat();
      const keep = fromFrame > 0 ? Math.min(fromFrame, Math.floor(Math.max(0, size - WAV_HEADER_BYTES) / blockAlign)) : 0;
      await file.truncate(WAV_HEADER_BYTES + keep * blockAlign);
      await file.write(wavHeader(format, keep), 0, WAV_HEADER_BYTES, 0);
      return new WavFileWriter(file, target, partial, format, keep);
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  /** Creates `path` in place: readers see it (with a header saying no frames) while it grows. */
  static async growing(path: string, format: WavFormat): Promise<WavFileWriter> {
    const file = await open(path, 'w');
    try {
      await file.write(wavHeader(format, 0), 0, WAV_HEADER_BYTES, 0);
      return new WavFileWriter(file, path, path, format, 0);
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  /** Frames written so far (including those kept on reopening). */
  get frameCount(): number {
    return this.frames;
  }

  /** Appends one chunk: one Int16Array per channel, equal lengths. */
  async write(samples: Int16Array[]): Promise<void> {
    const { channels } = this.format;
    if (samples.length !== channels) throw new Error(`WAV write: ${channels} channel(s) expected, ${samples.length} given`);
    const count = samples[0]?.length ?? 0;
    if (samples.some((s) => s.length !== count)) throw new Error('WAV write: all channels must have the same number of samples');
    await this.append(interleave(samples));
  }

  /** Appends frames already interleaved (host byte order), as a live call's media loop collects them. */
  async writeInterleaved(samples: Int16Array): Promise<void> {
    if (samples.length % this.format.channels !== 0) throw new Error('WAV write: a partial frame');
    await this.append(littleEndianBytes(samples));
  }

  private async append(bytes: Buffer): Promise<void> {
    const blockAlign = this.format.channels * BYTES_PER_SAMPLE;
    const count = bytes.length / blockAlign;
    if ((this.frames + count) * blockAlign > MAX_WAV_DATA_BYTES) throw new Error('WAV write: audio too long for a RIFF file (4 GiB limit)');
    // One append at a time (await each): the next one's place depends on this one's count.
    await this.file.write(bytes, 0, bytes.length, WAV_HEADER_BYTES + this.frames * blockAlign);
    this.frames += count;
  }

  /** Writes the final sizes, flushes, and moves the file into place. Returns its size in bytes. */
  async finish(): Promise<number> {
    try {
      await this.file.write(wavHeader(this.format, this.frames), 0, WAV_HEADER_BYTES, 0);
      // A file renamed into place must be whole on disk first; a growing one is a working file.
      if (this.partial !== this.target) await this.file.sync();
    } finally {
      await this.file.close();
    }
    if (this.partial !== this.target) await rename(this.partial, this.target);
    return WAV_HEADER_BYTES + this.frames * this.format.channels * BYTES_PER_SAMPLE;
  }

  /** Closes the partial file unfinished; `open` with the frame count continues it. */
  async release(): Promise<void> {
    await this.file.close();
  }

  /** Closes and deletes the partial file. */
  async discard(): Promise<void> {
    await this.file.close().catch(() => {});
    await rm(this.partial, { force: true });
  }
}
