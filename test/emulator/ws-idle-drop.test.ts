// The venue drops a WebSocket client that stops sending PING (wire-formats.md 1.2: "Connection
// drops after about 10 seconds" of missing heartbeats, the client pinging every 10 s): the emulator
// too, so a daemon whose PING loop broke loses its feed in our tests as it would on the venue.
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { openSocket, waitFor } from './helpers.js';

describe('emulator WebSocket: a client that stops sending PING', () => {
  it('is dropped once no PING came for the idle bound; one that pings stays', async () => {
    const emu = await startEmulator({ seed: 3, markets: 1, wsIdleDropMs: 400 });
    try {
      const silent = await openSocket(`${emu.urls.ws}/ws/market`);
      const pinging = await openSocket(`${emu.urls.ws}/ws/market`);
      const timer = setInterval(() => pinging.send('PING'), 100);
      try {
        for (const s of [silent, pinging]) s.send(JSON.stringify({ assets_ids: [emu.markets[0].tokens[0]], type: 'market' }));
        await waitFor(() => silent.closed() || undefined, 3000, 'the silent client dropped');
        await new Promise((r) => setTimeout(r, 800));
        expect(pinging.closed()).toBe(false);
        expect(pinging.frames).toContain('PONG');
      } finally {
        clearInterval(timer);
        pinging.close();
        silent.close();
      }
    } finally {
      await emu.close();
    }
  });

  it('the default bound is 20 s (twice the 10 s PING interval)', async () => {
    const emu = await startEmulator({ seed: 3, markets: 1 });
    try {
      const s = await openSocket(`${emu.urls.ws}/ws/market`);
      await new Promise((r) => setTimeout(r, 1500));
      expect(s.closed()).toBe(false);
      s.close();
      expect(emu.ws.idleDropMs).toBe(20_000);
    } finally {
      await emu.close();
    }
  });
});
