// PCM16 little-endian WAV (RIFF/WAVE) encoding and decoding for recordings.
// Only the formats telephony recordings use are accepted: 8 or 16 kHz,
// mono or interleaved stereo, 16-bit signed samples.

export type WavSampleRate = 8000 | 16000;
export type WavChannelCount = 1 | 2;

export interface PcmAudio {
  sampleRate: WavSampleRate;
  channels: WavChannelCount;
  /** One array per channel, all the same length. */
  samples: Int16Array[];
}

const PCM_FORMAT = 1;
const BITS_PER_SAMPLE = 16;
const BYTES_PER_SAMPLE = BITS_PER_SAMPLE / 8;
const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
const FMT_CHUNK_BYTES = 16;
const MAX_RIFF_SIZE = 0xffffffff;

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

  const blockAlign = audio.channels * BYTES_PER_SAMPLE;
  const dataBytes = frameCount * blockAlign;
  const fileBytes = RIFF_HEADER_BYTES + CHUNK_HEADER_BYTES + FMT_CHUNK_BYTES + CHUNK_HEADER_BYTES + dataBytes;
  if (fileBytes - CHUNK_HEADER_BYTES > MAX_RIFF_SIZE) {
    throw new Error('WAV encode: audio too long for a RIFF file (4 GiB limit)');
  }

  const buf = Buffer.alloc(fileBytes);
  let offset = 0;
  offset += buf.write('RIFF', offset, 'ascii');
  offset = buf.writeUInt32LE(fileBytes - CHUNK_HEADER_BYTES, offset);
  offset += buf.write('WAVE', offset, 'ascii');
  offset += buf.write('fmt ', offset, 'ascii');
  offset = buf.writeUInt32LE(FMT_CHUNK_BYTES, offset);
  offset = buf.writeUInt16LE(PCM_FORMAT, offset);
  offset = buf.writeUInt16LE(audio.channels, offset);
  offset = buf.writeUInt32LE(audio.sampleRate, offset);
  offset = buf.writeUInt32LE(audio.sampleRate * blockAlign, offset);
  offset = buf.writeUInt16LE(blockAlign, offset);
  offset = buf.writeUInt16LE(BITS_PER_SAMPLE, offset);
  offset += buf.write('data', offset, 'ascii');
  offset = buf.writeUInt32LE(dataBytes, offset);

  for (let frame = 0; frame < frameCount; frame++) {
    for (const channel of audio.samples) {
      offset = buf.writeInt16LE(channel[frame] as number, offset);
    }
  }
  return buf;
}

export function decodeWav(buf: Buffer): PcmAudio {
  if (buf.length < RIFF_HEADER_BYTES || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('WAV decode: not a RIFF/WAVE file');
  }

  let format: { sampleRate: WavSampleRate; channels: WavChannelCount } | undefined;
  let offset = RIFF_HEADER_BYTES;
  while (offset + CHUNK_HEADER_BYTES <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + CHUNK_HEADER_BYTES;
    if (body + size > buf.length) {
      throw new Error(`WAV decode: '${id}' chunk is truncated (${size} bytes declared, ${buf.length - body} present)`);
    }
    if (id === 'fmt ') {
      format = parseFmtChunk(buf.subarray(body, body + size));
    } else if (id === 'data') {
      if (!format) throw new Error("WAV decode: 'data' chunk appears before the 'fmt ' chunk");
      return { ...format, samples: deinterleave(buf.subarray(body, body + size), format.channels) };
    }
    // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
    offset = body + size + (size % 2);
  }
  throw new Error(format ? "WAV decode: no 'data' chunk" : "WAV decode: no 'fmt ' chunk");
}

function parseFmtChunk(fmt: Buffer): { sampleRate: WavSampleRate; channels: WavChannelCount } {
  if (fmt.length < FMT_CHUNK_BYTES) throw new Error(`WAV decode: 'fmt ' chunk too short (${fmt.length} bytes)`);
  const audioFormat = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const byteRate = fmt.readUInt32LE(8);
  const blockAlign = fmt.readUInt16LE(12);
  const bitsPerSample = fmt.readUInt16LE(14);
  if (audioFormat !== PCM_FORMAT) throw new Error(`WAV decode: audio format ${audioFormat} is not PCM (1)`);
  if (bitsPerSample !== BITS_PER_SAMPLE) throw new Error(`WAV decode: ${bitsPerSample}-bit samples, only 16-bit is supported`);
  const format = supportedFormat(sampleRate, channels);
  if (blockAlign !== channels * BYTES_PER_SAMPLE || byteRate !== sampleRate * blockAlign) {
    throw new Error('WAV decode: inconsistent block align / byte rate in fmt chunk');
  }
  return format;
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

function supportedFormat(sampleRate: number, channels: number): { sampleRate: WavSampleRate; channels: WavChannelCount } {
  if (sampleRate !== 8000 && sampleRate !== 16000) throw new Error(`WAV: unsupported sample rate ${sampleRate} Hz (8000 or 16000)`);
  if (channels !== 1 && channels !== 2) throw new Error(`WAV: unsupported channel count ${channels} (1 or 2)`);
  return { sampleRate, channels };
}
