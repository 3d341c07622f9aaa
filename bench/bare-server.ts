// The baseline: a bare Fastify server answering the same shapes as the scenarios, with no
// auth, rate limit, idempotency or database. The ratio ours/bare is what the bench reports.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const account = {
  id: 'acct_01jd8x0v6kf5b9w3t2q1r0p9n8', object: 'account', name: 'Bench', plan: 'enterprise', trial_ends_at: null,
  limits: { requests_per_minute: 60000, concurrent_calls: null }, created_at: new Date().toISOString(),
};
app.get('/bare/*', async () => account);
app.post('/bare/*', async (request) => ({ id: 'x_01jd8x0v6kf5b9w3t2q1r0p9n8', status: 'queued', ...(request.body as object) }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
