// The media clock after a stall: the packets that reached a leg's socket while the thread was
// blocked are read before the missed steps are played, so their audio is played, not
// concealed as silence and then dropped as late. The stall is a spawnSync'd child that sends
// the packets while this thread waits for it; what is asserted is an order of events, so the
// test holds on a slow or loaded machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ticker } from '../../src/carriers/rtp/ticker.ts';

test('a late tick lets the loop read what arrived during the stall before it catches up', async () => {
  const socket = createSocket('udp4');
  await new Promise<void>((bound) => socket.bind(0, '127.0.0.1', bound));
  let received = 0;
  socket.on('message', () => { received++; });
  const seenAtTicks: number[] = [];
  const ticker = new Ticker(() => { seenAtTicks.push(received); }, 20, 10, 1);
  try {
    ticker.begin();
    await sleep(70);
    const before = seenAtTicks.length;
    const sender = `const s = require('node:dgram').createSocket('udp4');
      let n = 0;
      const next = () => n === 5 ? s.close() : s.send(Buffer.alloc(172), ${socket.address().port}, '127.0.0.1', () => { n++; setTimeout(next, 20); });
      next();`;
    const child = spawnSync(process.execPath, ['-e', sender], { timeout: 10_000 });
    assert.equal(child.status, 0, String(child.stderr));
    await sleep(50);
    const afterStall = seenAtTicks.slice(before);
    assert.ok(afterStall.length >= 5, `the missed steps were caught up (${afterStall.length} ticks)`);
    assert.equal(afterStall[0], 5, `the first step after the stall saw every packet sent during it (saw ${afterStall[0]})`);
    assert.ok(ticker.stats.lateTicks >= 1, 'the stall was counted');
  } finally {
    ticker.stop();
    socket.close();
  }
});
