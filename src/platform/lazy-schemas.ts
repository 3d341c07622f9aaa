// Schemas are compiled when a route first needs them, not when the app starts. Compiling the
// request validators and response serializers of every route up front was most of start-up
// (about 2 s of CPU for 80 routes, fast-json-stringify the larger part), paid again by every
// `switchboard serve`, every CLI command that builds the app and every test server, while a
// process typically answers a handful of routes. A compiled function is kept: a route pays
// once, on its first request, and from then on runs exactly what the eager compiler built.
// `compileAll()` forces every pending compilation, so a test can prove every schema compiles.
import { createRequire } from 'node:module';

/** The deferred compilations of one app, to force them all at once (see compileAll). */
export class LazySchemas {
  private readonly pending = new Set<() => unknown>();

  /** A getter that runs `compile` on its first call and returns the same result ever after. */
  once<T>(compile: () => T): () => T {
    let done = false;
    let compiled: T;
    const get = (): T => {
      if (!done) {
        compiled = compile();
        done = true;
        this.pending.delete(get);
      }
      return compiled;
    };
    this.pending.add(get);
    return get;
  }

  /** How many compilations have not happened yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Compiles everything still pending; throws the first compilation error, as eager start-up would. */
  compileAll(): void {
    for (const force of [...this.pending]) force();
  }
}

// The serializer compiler Fastify itself uses by default, resolved from Fastify's own
// dependencies so the output is byte for byte what it would have produced eagerly.
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const defaultSerializerFactory = fastifyRequire('@fastify/fast-json-stringify-compiler') as () => SerializerFactory;

type SerializerInput = { schema: unknown; method?: string; url?: string; httpStatus?: string; contentType?: string };
type SerializerFactory = (externalSchemas: unknown, serializerOpts: unknown) => (input: SerializerInput) => (data: unknown) => string;

/**
 * A `schemaController.compilersFactory.buildSerializer` whose serializers compile on first use.
 * Routes share a serializer when their response schemas, and the shared schemas those may
 * refer to, are the same JSON (most error responses are one Problem schema): fast-json-stringify's
 * output depends on nothing else, the options being the app's own.
 */
export function lazySerializerFactory(lazy: LazySchemas): SerializerFactory {
  const eager = defaultSerializerFactory();
  const compiled = new Map<string, (data: unknown) => string>();
  return (externalSchemas, serializerOpts) => {
    const compile = eager(externalSchemas, serializerOpts);
    const external = JSON.stringify(externalSchemas ?? null);
    return (input) => {
      const serializer = lazy.once(() => {
        const key = `${external}\n${JSON.stringify(input.schema)}`;
        let serialize = compiled.get(key);
        if (!serialize) compiled.set(key, (serialize = compile(input)));
        return serialize;
      });
      return (data) => serializer()(data);
    };
  };
}
