// The text-to-speech worker: eSpeak NG compiled to WebAssembly (the `espeak-ng` npm
// package), on its own thread because one utterance takes a CPU-second or more and neither
// the database thread nor the RTP thread may stall for that. The 18 MB module is compiled
// once; each utterance instantiates it afresh (the package exposes eSpeak's command line,
// which runs once per instance) and reads the WAV it wrote to its in-memory file system.
import { parentPort } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { toLineRate } from '../../media/resample.ts';
import { readPcm16Wav } from '../../media/wav.ts';

const port = parentPort;
if (!port) throw new Error('the speech worker must run in a worker thread');

interface EspeakInstance { FS: { readFile(path: string): Uint8Array } }
type EspeakFactory = (options: Record<string, unknown>) => Promise<EspeakInstance>;

const packageDir = dirname(createRequire(import.meta.url).resolve('espeak-ng/package.json'));
const compiled = readFile(join(packageDir, 'dist', 'espeak-ng.wasm')).then((bytes) => WebAssembly.compile(bytes));
// The package ships no types: its one export is the Emscripten module factory.
const factory = (import('espeak-ng' as string) as Promise<{ default: EspeakFactory }>).then((m) => m.default);

export interface SpeechRequest { request: number; text: string; voice: string }

async function synthesize(text: string, voice: string): Promise<Int16Array> {
  const [module, create] = await Promise.all([compiled, factory]);
  const messages: string[] = [];
  const run = await create({
    // eSpeak reads its own options from the text unless told otherwise: `--` ends them.
    arguments: ['-w', '/out.wav', '-v', voice, '--', text],
    instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => {
      void WebAssembly.instantiate(module, imports).then((instance) => done(instance, module));
      return {};
    },
    print: (line: string) => messages.push(line),
    printErr: (line: string) => messages.push(line),
  });
  let wav: Uint8Array;
  try {
    wav = run.FS.readFile('/out.wav');
  } catch {
    throw new Error(`eSpeak NG produced no audio for voice "${voice}": ${messages.join(' ').trim() || 'no message'}`);
  }
  const { sampleRate, samples } = readPcm16Wav(wav);
  return toLineRate(samples, sampleRate);
}

port.on('message', (message: SpeechRequest) => {
  synthesize(message.text, message.voice).then(
    (pcm) => port.postMessage({ request: message.request, ok: true, pcm }, [pcm.buffer as ArrayBuffer]),
    (error: Error) => port.postMessage({ request: message.request, ok: false, error: error.message }),
  );
});
