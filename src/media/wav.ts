// PCM16 little-endian WAV (RIFF/WAVE): the one header writer and the one reader.
// Files we write have the canonical 44-byte header (RIFF, fmt, data) and hold the formats
// telephony uses: 8 or 16 kHz, mono or interleaved stereo, 16-bit signed samples. Files we
// read may come from elsewhere (speech engines, uploads): any chunk order, odd-sized chunks,
// any rate for prompts, and a streaming writer's unpatched data size.

export type WavSampleRate = 8000 | 16000;
export type WavChannelCount = 1 | 2;

export interface WavFormat {
  sampleRate: WavSampleRate;
  channels: WavChannelCount;
}

export interface PcmAudio extends WavFormat {
  /** One array per channel, all the same length. */
  samples: Int16Array[];
}

/** Bytes before the first sample in every file we write. */
export const WAV_HEADER_BYTES = 44;
export const BYTES_PER_SAMPLE = 2;
const PCM_FORMAT = 1;
const BITS_PER_SAMPLE = 16;
const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
const FMT_CHUNK_BYTES = 16;
/** The most audio a RIFF file's 32-bit sizes can describe. */
export const MAX_WAV_DATA_BYTES = 0xffffffff - (WAV_HEADER_BYTES - CHUNK_HEADER_BYTES);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The canonical header for `frames` frames of `format`. */
export function wavHeader(format: WavFormat, frames: number): Buffer {
  const blockAlign = format.channels * BYTES_PER_SAMPLE;
  const dataBytes = frames * blockAlign;
  if (dataBytes > MAX_WAV_DATA_BYTES) throw new Error('WAV: audio too long for a RIFF file (4 GiB limit)');
  const buf = Buffer.alloc(WAV_HEADER_BYTES);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(WAV_HEADER_BYTES - CHUNK_HEADER_BYTES + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(FMT_CHUNK_BYTES, 16);
  buf.writeUInt16LE(PCM_FORMAT, 20);
  buf.writeUInt16LE(format.channels, 22);
  buf.writeUInt32LE(format.sampleRate, 24);
  buf.writeUInt32LE(format.sampleRate * blockAlign, 28);
  buf.writeUInt16LE(blockAlign, 32);
  buf.writeUInt16LE(BITS_PER_SAMPLE, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  return buf;
}

/** Channels (one array each, equal lengths) as interleaved little-endian sample bytes. */
export function interleave(samples: readonly Int16Array[]): Buffer {
  const channels = samples.length;
  const count = samples[0]?.length ?? 0;
  if (samples.some((s) => s.length !== count)) throw new Error('WAV: all channels must have the same number of samples');
  const bytes = Buffer.allocUnsafe(count * channels * BYTES_PER_SAMPLE);
  if (LITTLE_ENDIAN) {
    // Through a typed view of the buffer: an order of magnitude faster than writeInt16LE.
    const view = new Int16Array(bytes.buffer, bytes.byteOffset, count * channels);
    for (let c = 0; c < channels; c++) {
      const channel = samples[c] as Int16Array;
      for (let i = 0, j = c; i < count; i++, j += channels) view[j] = channel[i] as number;
    }
  } else {
    let offset = 0;
    for (let i = 0; i < count; i++) {
      for (let c = 0; c < channels; c++) offset = bytes.writeInt16LE((samples[c] as Int16Array)[i] as number, offset);
    }
  }
  return bytes;
}

/** Interleaved samples in host order as the little-endian bytes a WAV holds (a view when the host is little-endian). */
export function littleEndianBytes(samples: Int16Array): Buffer {
  const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  return LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap16();
}

export function encodeWav(audio: PcmAudio): Buffer {
  // Callers may build PcmAudio from untyped input (JSON, DB rows), so check at runtime too.
  supportedFormat(audio.sampleRate, audio.channels);
  if (audio.samples.length !== audio.channels) {
    throw new Error(`WAV encode: ${audio.channels} channel(s) declared but ${audio.samples.length} sample arrays given`);
  }
  const frameCount = audio.samples[0]?.length ?? 0;
  if (audio.samples.some((channel) => channel.length !== frameCount)) {
    throw new Error('WAV encode: all channels must have the same number of samples');
  }
  if (frameCount * audio.channels * BYTES_PER_SAMPLE > MAX_WAV_DATA_BYTES) {
    throw new Error('WAV encode: audio too long for a RIFF file (4 GiB limit)');
  }
  return Buffer.concat([wavHeader(audio, frameCount), interleave(audio.samples)]);
}

interface FmtChunk {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

interface WavChunks {
  fmt: FmtChunk;
  /** Offset of the first sample in the buffer. */
  dataOffset: number;
  /** The data chunk as declared by its header. */
  declaredDataBytes: number;
  /** The data chunk's bytes (clamped to the buffer when `streamed`). */
  data: Buffer;
}

/**
 * Walks the chunks up to `data`. `streamed` accepts what streaming writers leave behind (eSpeak NG
 * among them leaves the data size at its maximum; a header read alone has no samples): the data
 * chunk is clamped to what the buffer holds instead of refused as truncated.
 */
function readChunks(buf: Buffer, streamed: boolean): WavChunks {
  if (buf.length < RIFF_HEADER_BYTES || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('WAV decode: not a RIFF/WAVE file');
  }
  let fmt: FmtChunk | undefined;
  let offset = RIFF_HEADER_BYTES;
  while (offset + CHUNK_HEADER_BYTES <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const declared = buf.readUInt32LE(offset + 4);
    const body = offset + CHUNK_HEADER_BYTES;
    const size = streamed && id === 'data' ? Math.min(declared, buf.length - body) : declared;
    if (body + size > buf.length) {
      throw new Error(`WAV decode: '${id}' chunk is truncated (${size} bytes declared, ${buf.length - body} present)`);
    }
    if (id === 'fmt ') {
      fmt = parseFmtChunk(buf.subarray(body, body + size));
    } else if (id === 'data') {
      if (!fmt) throw new Error("WAV decode: 'data' chunk appears before the 'fmt ' chunk");
      return { fmt, dataOffset: body, declaredDataBytes: declared, data: buf.subarray(body, body + size) };
    }
    // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
    offset = body + size + (size % 2);
  }
  throw new Error(fmt ? "WAV decode: no 'data' chunk" : "WAV decode: no 'fmt ' chunk");
}

function parseFmtChunk(fmt: Buffer): FmtChunk {
  if (fmt.length < FMT_CHUNK_BYTES) throw new Error(`WAV decode: 'fmt ' chunk too short (${fmt.length} bytes)`);
  const chunk: FmtChunk = {
    audioFormat: fmt.readUInt16LE(0),
    channels: fmt.readUInt16LE(2),
    sampleRate: fmt.readUInt32LE(4),
    byteRate: fmt.readUInt32LE(8),
    blockAlign: fmt.readUInt16LE(12),
    bitsPerSample: fmt.readUInt16LE(14),
  };
  if (chunk.audioFormat !== PCM_FORMAT) throw new Error(`WAV decode: audio format ${chunk.audioFormat} is not PCM (1)`);
  if (chunk.bitsPerSample !== BITS_PER_SAMPLE) throw new Error(`WAV decode: ${chunk.bitsPerSample}-bit samples, only 16-bit is supported`);
  if (chunk.channels === 0) throw new Error('WAV decode: no channels');
  return chunk;
}

/** A recording: 8 or 16 kHz, mono or stereo, every sample of every channel. */
export function decodeWav(buf: Buffer): PcmAudio {
  const { fmt, data } = readChunks(buf, false);
  const format = supportedFormat(fmt.sampleRate, fmt.channels);
  if (fmt.blockAlign !== fmt.channels * BYTES_PER_SAMPLE || fmt.byteRate !== fmt.sampleRate * fmt.blockAlign) {
    throw new Error('WAV decode: inconsistent block align / byte rate in fmt chunk');
  }
  return { ...format, samples: deinterleave(data, format.channels) };
}

/** A prompt: the first channel of a 16-bit PCM WAV at any rate, or the mono mix of its channels. */
export function readPcm16Wav(buf: Uint8Array): { sampleRate: number; samples: Int16Array } {
  const { fmt, data } = readChunks(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), true);
  const { channels } = fmt;
  const frames = Math.floor(data.length / (BYTES_PER_SAMPLE * channels));
  const samples = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += data.readInt16LE((i * channels + c) * BYTES_PER_SAMPLE);
    samples[i] = Math.round(sum / channels);
  }
  return { sampleRate: fmt.sampleRate, samples };
}

/** The format and length of a file we wrote, from its first WAV_HEADER_BYTES bytes; anything else is refused. */
export function readWavHeader(head: Buffer): WavFormat & { frames: number } {
  let chunks: WavChunks;
  try {
    chunks = readChunks(head.subarray(0, WAV_HEADER_BYTES), true);
  } catch (err) {
    throw new Error(`WAV: not a canonical 44-byte header (${(err as Error).message})`);
  }
  const { fmt, dataOffset, declaredDataBytes } = chunks;
  if (dataOffset !== WAV_HEADER_BYTES) throw new Error('WAV: not a canonical 44-byte header');
  const format = supportedFormat(fmt.sampleRate, fmt.channels);
  return { ...format, frames: Math.floor(declaredDataBytes / (format.channels * BYTES_PER_SAMPLE)) };
}

function deinterleave(data: Buffer, channels: WavChannelCount): Int16Array[] {
  const blockAlign = channels * BYTES_PER_SAMPLE;
  if (data.length % blockAlign !== 0) {
    throw new Error(`WAV decode: data size ${data.length} is not a whole number of ${blockAlign}-byte frames`);
  }
  const frameCount = data.length / blockAlign;
  const samples = Array.from({ length: channels }, () => new Int16Array(frameCount));
  for (let frame = 0; frame < frameCount; frame++) {
    for (let channel = 0; channel < channels; channel++) {
      (samples[channel] as Int16Array)[frame] = data.readInt16LE(frame * blockAlign + channel * BYTES_PER_SAMPLE);
    }
  }
  return samples;
}

function supportedFormat(sampleRate: number, channels: number): WavFormat {
  if (sampleRate !== 8000 && sampleRate !== 16000) throw new Error(`WAV: unsupported sample rate ${sampleRate} Hz (8000 or 16000)`);
  if (channels !== 1 && channels !== 2) throw new Error(`WAV: unsupported channel count ${channels} (1 or 2)`);
  return { sampleRate, channels };
}
