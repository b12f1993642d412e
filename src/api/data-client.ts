// The Data API, all 10 endpoints of spec 4.3. Shapes are not documented beyond "JSON", so
// lists are validated as arrays and single resources as objects; callers narrow further.
import { offsetItems, validate } from './paginate.js';
import { looseArraySchema, looseObjectSchema, type JsonObject } from './schemas.js';
import type { Method, QueryValue, Transport } from './transport.js';
import type { OffsetQuery } from './gamma-client.js';
import type { z } from 'zod';

export interface PriceHistoryQuery {
  /** Token id. */
  market: string;
  startTs?: number;
  endTs?: number;
  interval?: string;
  fidelity?: number;
}

const seg = encodeURIComponent;

export class DataClient {
  constructor(readonly transport: Transport) {}

  private async call<T>(schema: z.ZodType<T>, path: string, query?: Record<string, QueryValue>): Promise<T> {
    const method: Method = 'GET';
    return validate(schema, await this.transport.request({ method, path, query }), method, path);
  }

  listEvents(q: OffsetQuery = {}): Promise<unknown[]> {
    return this.call(looseArraySchema, '/events', { ...q });
  }
  listMarkets(q: OffsetQuery = {}): Promise<unknown[]> {
    return this.call(looseArraySchema, '/markets', { ...q });
  }
  priceHistory(q: PriceHistoryQuery): Promise<JsonObject> {
    return this.call(looseObjectSchema, '/prices', { ...q });
  }
  userStats(address: string): Promise<JsonObject> {
    return this.call(looseObjectSchema, `/users/${seg(address)}`);
  }
  userTrades(address: string, q: OffsetQuery = {}): Promise<unknown[]> {
    return this.call(looseArraySchema, `/users/${seg(address)}/trades`, { ...q });
  }
  iterateUserTrades(address: string, pageSize = 100): AsyncGenerator<unknown> {
    return offsetItems((offset, limit) => this.userTrades(address, { offset, limit }), pageSize);
  }
  userPositions(address: string, q: OffsetQuery = {}): Promise<unknown[]> {
    return this.call(looseArraySchema, `/users/${seg(address)}/positions`, { ...q });
  }
  iterateUserPositions(address: string, pageSize = 100): AsyncGenerator<unknown> {
    return offsetItems((offset, limit) => this.userPositions(address, { offset, limit }), pageSize);
  }
  /** Shape not documented: parsed JSON. */
  userPnl(address: string): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: `/users/${seg(address)}/pnl` });
  }
  builderStats(apiKey: string): Promise<JsonObject> {
    return this.call(looseObjectSchema, `/builders/${seg(apiKey)}`);
  }
  builderVolume(apiKey: string): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: `/builders/${seg(apiKey)}/volume` });
  }
  health(): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: '/health' });
  }
}
