// The open WebSocket connections of one emulator endpoint: a connection leaves the set when it
// closes or errors, and dropAll() cuts every one abruptly (the "drop connections" fault, shutdown).
import type { WebSocket } from 'ws';

export class ConnectionSet<C extends { ws: WebSocket }> implements Iterable<C> {
  private readonly conns = new Set<C>();

  get size(): number {
    return this.conns.size;
  }

  /** Adds a connection; it is removed again on its socket's close or error. */
  add(c: C): void {
    this.conns.add(c);
    c.ws.on('close', () => this.conns.delete(c));
    c.ws.on('error', () => this.conns.delete(c));
  }

  delete(c: C): void {
    this.conns.delete(c);
  }

  [Symbol.iterator](): Iterator<C> {
    return this.conns.values();
  }

  /** Terminates every connection abruptly; returns how many there were. */
  dropAll(): number {
    const n = this.conns.size;
    for (const c of this.conns) c.ws.terminate();
    this.conns.clear();
    return n;
  }
}
