// Registers the `speech` section of the carriers file: its schema, its links and how to
// probe them. Apart from config.ts so that the probe (which uses the config's types) and the
// config do not import each other; src/carriers/config/kinds.ts imports this file.
import { registerCarrierKind, type CarrierLink } from '../config/registry.ts';
import { SPEECH_LINK, SpeechSectionConfig, trimmed } from './config.ts';
import { probeSpeechLink } from './probe.ts';

registerCarrierKind({
  section: 'speech',
  schema: SpeechSectionConfig,
  links: (value, base): CarrierLink[] => {
    const section = value as SpeechSectionConfig;
    const links: CarrierLink[] = [];
    if (section.tts) {
      links.push({ name: SPEECH_LINK.tts, kind: 'speech', role: 'speech', channels: [], path: `${base}.tts`, config: section.tts, target: `${trimmed(section.tts.base_url)}/v1/audio/speech (${section.tts.model}, ${section.tts.voice})` });
    }
    if (section.stt) {
      links.push({ name: SPEECH_LINK.stt, kind: 'speech', role: 'speech', channels: [], path: `${base}.stt`, config: section.stt, target: `${trimmed(section.stt.base_url)}/v1/audio/transcriptions (${section.stt.model})` });
    }
    return links;
  },
  probe: (link, opts) => probeSpeechLink(link, opts.timeoutMs),
});
