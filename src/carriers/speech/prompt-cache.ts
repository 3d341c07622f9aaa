// The last prompts spoken, by voice and text: flows say the same greeting to every caller,
// and synthesis costs a CPU-second (eSpeak) or a paid request (an API). A failed synthesis
// is not kept, so the next caller tries again.

export class PromptCache {
  private readonly entries = new Map<string, Promise<Int16Array>>();

  constructor(private readonly capacity = 64) {}

  get(key: string, make: () => Promise<Int16Array>): Promise<Int16Array> {
    let pcm = this.entries.get(key);
    if (pcm) {
      // Most recently used last, so the oldest is dropped first.
      this.entries.delete(key);
    } else {
      pcm = make();
      pcm.catch(() => {
        if (this.entries.get(key) === pcm) this.entries.delete(key);
      });
    }
    this.entries.set(key, pcm);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return pcm;
  }
}
