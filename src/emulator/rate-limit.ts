// Server-side rate limits: the API helper's limit table (src/api/limit-table.ts) enforced with
// the same exact SlidingWindow the clients use, one window per (API key or client, scope), under
// --limit-scale and --window-scale. A request is admitted only when every scope has room; a
// refusal names the tightest scope for the 429 headers. X-RateLimit-Reset is in epoch ms.
import { scaleScope, scopesFor, type ApiName, type Scope } from '../api/limit-table.js';
import { SlidingWindow } from '../api/sliding-window.js';

export interface RateDecision {
  ok: boolean;
  /** The scope that refused (or the tightest one that admitted). */
  limit: number;
  remaining: number;
  /** Epoch ms when the refusing scope has room again (nowMs when admitted). */
  resetAtMs: number;
  scopeId: string;
}

export class ServerRateLimiter {
  private readonly windows = new Map<string, SlidingWindow>();
  constructor(
    private readonly limitScale = 1,
    private readonly windowScale = 1,
  ) {}

  private window(client: string, s: Scope): SlidingWindow {
    const key = client + '\u0000' + s.id;
    let w = this.windows.get(key);
    if (!w) {
      const sc = scaleScope(s, this.limitScale, this.windowScale);
      this.windows.set(key, (w = new SlidingWindow(sc.limit, sc.windowMs)));
    }
    return w;
  }

  /** The most specific scope's limit and room, without taking a slot (for an injected 429). */
  peek(client: string, api: ApiName, method: string, path: string, nowMs: number): { limit: number; remaining: number } {
    const w = this.window(client, scopesFor(api, method, path)[0]);
    return { limit: w.limit, remaining: w.remaining(nowMs) };
  }

  check(client: string, api: ApiName, method: string, path: string, nowMs: number): RateDecision {
    const scopes = scopesFor(api, method, path);
    const ws = scopes.map((s) => this.window(client, s));
    for (let i = 0; i < ws.length; i++) {
      if (!ws[i].hasRoom(nowMs)) {
        return { ok: false, limit: ws[i].limit, remaining: 0, resetAtMs: Math.ceil(ws[i].nextFreeAt(nowMs)), scopeId: scopes[i].id };
      }
    }
    let tight = 0;
    for (let i = 0; i < ws.length; i++) {
      ws[i].record(nowMs);
      if (ws[i].remaining(nowMs) < ws[tight].remaining(nowMs)) tight = i;
    }
    return { ok: true, limit: ws[tight].limit, remaining: ws[tight].remaining(nowMs), resetAtMs: nowMs, scopeId: scopes[tight].id };
  }
}
