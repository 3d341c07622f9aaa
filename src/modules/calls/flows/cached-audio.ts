// A flow's audio file fetched to local disk (flow-audio.ts fetches it; the verbs' media
// operations play it). A leaf, so the verbs do not import the fetcher, which reads the registry.
/** A fetched audio file: where it is and how long it plays. */
export interface CachedAudio {
  path: string;
  seconds: number;
}
