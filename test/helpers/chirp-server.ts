// A one-second chirp served as a WAV on 127.0.0.1: the file of a `play` or an announcement
// that a recording is correlated with (audio-match.ts matchAudio). It sweeps, so it matches at
// one place only, and it is louder than the SIPp trunks' tones, so it is found over them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWav } from '../../src/media/wav.ts';

/** 1 s sweeping 400 Hz to 2400 Hz at 8 kHz, louder than the trunks' tones (6000). */
export const CHIRP = Int16Array.from({ length: 8000 }, (_, i) => {
  const t = i / 8000;
  return Math.round(16000 * Math.sin(2 * Math.PI * (400 * t + 1000 * t * t)));
});

export interface ChirpServer {
  url: string;
  /** How many times the file was fetched (each node fetches it once into its own cache). */
  fetches(): number;
  close(): Promise<void>;
}

export async function serveChirp(): Promise<ChirpServer> {
  let fetches = 0;
  const server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { 'content-type': 'audio/wav' }).end(encodeWav({ sampleRate: 8000, channels: 1, samples: [CHIRP] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/chirp.wav`,
    fetches: () => fetches,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
