// Runs baresip as a real SIP user agent on 127.0.0.x for tests: headless (no sound card,
// no console), auto-answering, speaking a WAV file we choose (the `aufile` source) and
// writing what it hears to a WAV (the `sndfile` filter dumps the decoded far end as
// `dump-...-dec.wav`; baresip 1.0's `aufile` is a source only). Its own SIP stack and
// jitter buffer are the point: nothing of ours is on its side of the call.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPeerDaemon } from './peer-daemon.ts';
import { decodeWav } from '../../src/media/wav.ts';

export interface Baresip {
  dir: string;
  /** baresip's stdout and stderr so far (its log explains a failed call). */
  log(): string;
  /** What baresip heard during its last call (mono, 8 kHz), once the call ended. */
  heard(): Int16Array;
  /** Ends baresip (SIGTERM, then SIGKILL after 3 s); resolves once it is gone. */
  stop(): Promise<void>;
}

export interface BaresipOptions {
  /** The address baresip's SIP listens on (127.0.0.x). */
  host: string;
  /** The user part baresip answers to (the number we call). */
  user: string;
  port: number;
  /** A 16-bit mono 8 kHz WAV baresip speaks into every call. */
  speaks: string;
  rtpPorts: { min: number; max: number };
  /** A SIP URI baresip calls as soon as it starts (it is then the caller, speaking `speaks`). */
  dial?: string;
  /**
   * Register `user` with a registrar (host:port) with digest credentials, refreshing every
   * `expires` seconds, as a worker's softphone does: calls then come to its registered contact.
   */
  register?: { registrar: string; password: string; expires: number };
}

export async function startBaresip(options: BaresipOptions): Promise<Baresip> {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-'));
  writeFileSync(join(dir, 'config'), [
    'poll_method epoll',
    // Only this address: baresip would otherwise advertise the machine's first interface in SDP.
    `net_interface ${options.host}`,
    `sip_listen ${options.host}:${options.port}`,
    `rtp_ports ${options.rtpPorts.min}-${options.rtpPorts.max}`,
    `audio_source aufile,${options.speaks}`,
    // aubridge's player discards what it is given: the sndfile filter has already written it.
    'audio_player aubridge,heard',
    'audio_alert aubridge,alert',
    'module_path /usr/lib/baresip/modules',
    'module g711.so',
    'module aufile.so',
    'module aubridge.so',
    'module sndfile.so',
    `snd_path ${dir}`,
    'module_tmp account.so',
    'module_app menu.so',
    '',
  ].join('\n'));
  writeFileSync(join(dir, 'accounts'), `${accountLine(options)}\n`);
  writeFileSync(join(dir, 'contacts'), '');
  const daemon = await startPeerDaemon({
    name: 'baresip', command: 'baresip', args: ['-f', dir, ...(options.dial ? ['-e', `/dial ${options.dial}`] : [])], cwd: dir,
    listens: [{ port: options.port, protocol: 'udp' }],
  });
  return {
    dir,
    log: daemon.log,
    heard: () => {
      const dumps = readdirSync(dir).filter((f) => f.startsWith('dump-') && f.endsWith('-dec.wav')).sort();
      const last = dumps.at(-1);
      if (!last) throw new Error(`baresip wrote no recording of what it heard in ${dir}\n${daemon.log()}`);
      const wav = decodeWav(readFileSync(join(dir, last)));
      if (wav.sampleRate !== 8000 || wav.channels !== 1) throw new Error(`baresip's recording is ${wav.sampleRate} Hz x ${wav.channels}, expected 8000 x 1`);
      return wav.samples[0]!;
    },
    stop: daemon.stop,
  };
}

/** baresip's account: answering at its own address, or registered with a registrar (the AOR's domain). */
function accountLine({ user, host, register }: BaresipOptions): string {
  if (!register) return `<sip:${user}@${host}>;regint=0;answermode=auto;audio_codecs=PCMU,PCMA`;
  return `<sip:${user}@${register.registrar}>;auth_pass=${register.password};regint=${register.expires};answermode=auto;audio_codecs=PCMU,PCMA`;
}
