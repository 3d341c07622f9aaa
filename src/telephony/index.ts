// The shared kernel of voice: the words the calls module, the flow interpreter and every
// carrier use to talk about a call. It imports nothing from modules or carriers (only
// store/media leaf types), so both sides can depend on it without depending on each other.
export * from './call-ref.ts';
export * from './call-end.ts';
export * from './transcript.ts';
export * from './media-ops.ts';
