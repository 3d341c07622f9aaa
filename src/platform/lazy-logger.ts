// Fastify gives every request a pino child logger bound to its request id, though at the
// usual levels most requests never write a line; making that child was about a tenth of the
// hot path's CPU. This child is made on the first call that would write, with the same
// bindings, so request logs look exactly as before.
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Parent = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

class LazyChildLogger {
  #real: FastifyBaseLogger | undefined;

  constructor(private readonly parent: Parent, private readonly bindings: Record<string, unknown>) {}

  private get real(): FastifyBaseLogger {
    return (this.#real ??= this.parent.child(this.bindings));
  }

  private write(level: Level, args: unknown[]): void {
    if (this.#real || this.parent.isLevelEnabled!(level)) (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: unknown[]): void { this.write('fatal', args); }
  error(...args: unknown[]): void { this.write('error', args); }
  warn(...args: unknown[]): void { this.write('warn', args); }
  info(...args: unknown[]): void { this.write('info', args); }
  debug(...args: unknown[]): void { this.write('debug', args); }
  trace(...args: unknown[]): void { this.write('trace', args); }
  silent(): void {}

  child(bindings: Record<string, unknown>, opts?: object): FastifyBaseLogger {
    return this.real.child(bindings, opts);
  }
}

/** Fastify's `childLoggerFactory`: lazy when it can be, pino's own child otherwise. */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Record<string, unknown>, opts: object): FastifyBaseLogger {
  const canWait = typeof (parent as Parent).isLevelEnabled === 'function' && Object.keys(opts).length === 0;
  return canWait ? (new LazyChildLogger(parent, bindings) as unknown as FastifyBaseLogger) : parent.child(bindings, opts);
}
