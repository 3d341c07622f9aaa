// The interactive API reference at /docs (Scalar's Fastify plugin over /v1/openapi.json).
// Registering that plugin reads its 3.4 MB browser bundle and loads its OpenAPI parser:
// about 0.2 s of CPU at every start of every server, for pages few servers ever serve. So
// /docs is answered by a small Fastify instance of its own with the plugin in it, built on
// the first visit and kept.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** Response headers the outer reply sets itself. */
const HOP_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding', 'date', 'keep-alive']);

export function registerDocsUi(app: FastifyInstance, openApiUrl: string): void {
  let ui: Promise<FastifyInstance> | undefined;
  const build = async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(scalar, { routePrefix: '/docs', configuration: { url: openApiUrl } } as never);
    await inner.ready();
    return inner;
  };
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!ui) {
      ui = build();
      ui.catch(() => { ui = undefined; });
    }
    const res = await (await ui).inject({ method: 'GET', url: request.url, headers: { host: request.headers.host ?? 'localhost' } });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, serve);
  app.get('/docs/*', { schema: { hide: true } }, serve);
}
