// autocannon ships no types; the benches use a small part of its API.
declare module 'autocannon' {
  interface Result {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number; max: number };
    non2xx: number;
    errors: number;
  }
  function autocannon(options: Record<string, unknown>): Promise<Result>;
  export default autocannon;
}
