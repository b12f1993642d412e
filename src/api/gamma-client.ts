// The market metadata (Gamma) API, all 12 endpoints of spec 4.2. Markets are validated and their
// JSON-encoded-string fields (clobTokenIds, outcomes, outcomePrices) decoded to arrays.
import { offsetItems, validate } from './paginate.js';
import { gammaMarketSchema, looseArraySchema, looseObjectSchema, type GammaMarket, type JsonObject } from './schemas.js';
import type { Method, QueryValue, Transport } from './transport.js';
import type { z } from 'zod';

export interface MarketFilter {
  active?: boolean;
  closed?: boolean;
  tag?: string;
  category?: string;
  order?: string;
  /** With `order`: false for the highest first (sent as public clients send it; the default is not documented). */
  ascending?: boolean;
}
export interface OffsetQuery {
  limit?: number;
  offset?: number;
}
export interface NewComment {
  body: string;
  parentEntityType?: string;
  parentEntityId?: string;
}

const DEFAULT_PAGE = 100;
const objects = looseArraySchema;

export class GammaClient {
  constructor(readonly transport: Transport) {}

  private async call<T>(schema: z.ZodType<T>, method: Method, path: string, query?: Record<string, QueryValue>, body?: unknown): Promise<T> {
    return validate(schema, await this.transport.request({ method, path, query, body }), method, path);
  }

  listMarkets(q: MarketFilter & OffsetQuery = {}): Promise<GammaMarket[]> {
    return this.call(gammaMarketSchema.array(), 'GET', '/markets', { ...q });
  }
  iterateMarkets(filter: MarketFilter = {}, pageSize = DEFAULT_PAGE): AsyncGenerator<GammaMarket> {
    return offsetItems((offset, limit) => this.listMarkets({ ...filter, offset, limit }), pageSize);
  }
  getMarket(conditionId: string): Promise<GammaMarket> {
    return this.call(gammaMarketSchema, 'GET', `/markets/${encodeURIComponent(conditionId)}`);
  }
  /** Bulk market data; shape not documented. */
  marketsData(query: Record<string, QueryValue> = {}): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: '/markets/data', query });
  }
  listEvents(q: OffsetQuery & Record<string, QueryValue> = {}): Promise<unknown[]> {
    return this.call(objects, 'GET', '/events', q);
  }
  getEvent(slug: string): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'GET', `/events/${encodeURIComponent(slug)}`);
  }
  listComments(q: OffsetQuery & Record<string, QueryValue> = {}): Promise<unknown[]> {
    return this.call(objects, 'GET', '/comments', q);
  }
  postComment(c: NewComment): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'POST', '/comments', undefined, c);
  }
  getProfile(address: string): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'GET', `/profiles/${encodeURIComponent(address)}`);
  }
  listTags(): Promise<unknown[]> {
    return this.call(objects, 'GET', '/tags');
  }
  listSports(): Promise<unknown[]> {
    return this.call(objects, 'GET', '/sports');
  }
  listSeries(q: OffsetQuery = {}): Promise<unknown[]> {
    return this.call(objects, 'GET', '/series', { ...q });
  }
  /** JSON or a text body such as "OK". */
  health(): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: '/health' });
  }
}
