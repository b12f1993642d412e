// Test helpers for the emulator tests: the project's own clients pointed at a running emulator,
// bounded waits, and a raw WebSocket that collects text frames.
import WebSocket from 'ws';
import { loadConfig, type Config } from '../../src/config.js';
import { createClients, type Clients } from '../../src/api/index.js';
import type { EmulatorUrls } from '../../src/emulator/server.js';

export function configFor(urls: EmulatorUrls): Config {
  return loadConfig({
    env: {},
    overrides: {
      urls: { clob: urls.clob, gamma: urls.gamma, data: urls.data, content: urls.content, ws: urls.ws, priceFeed: urls.price_feed },
      retry: { baseMs: 50, maxMs: 200, attempts: 1 },
    },
  });
}

export function clientsFor(urls: EmulatorUrls, key?: string): Clients {
  return createClients(configFor(urls), key);
}

export async function waitFor<T>(fn: () => T | undefined | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface TestSocket {
  ws: WebSocket;
  frames: string[];
  closed: () => boolean;
  send(text: string): void;
  close(): void;
}

export async function openSocket(url: string, timeoutMs = 3000): Promise<TestSocket> {
  const ws = new WebSocket(url);
  const frames: string[] = [];
  let isClosed = false;
  ws.on('message', (d) => frames.push(d.toString()));
  ws.on('close', () => (isClosed = true));
  ws.on('error', () => (isClosed = true));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`ws open timed out: ${url}`)), timeoutMs);
    ws.once('open', () => {
      clearTimeout(t);
      resolve();
    });
    ws.once('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
  return { ws, frames, closed: () => isClosed, send: (t) => ws.send(t), close: () => ws.terminate() };
}
