// npm run bench:conference — conferences of 5 legs at scale. By default live (conference-live.ts):
// a real server, calls placed through the HTTP API to SIPp peers that echo RTP, seated by the
// `conference` verb. BENCH_CONF_LIVE=0: the media engine alone with a Node echo peer
// (conference-engine.ts), which isolates the mixer from SIP, HTTP, the database and SIPp.
await import(process.env.BENCH_CONF_LIVE === '0' ? './conference-engine.ts' : './conference-live.ts');
