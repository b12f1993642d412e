// The content API (news articles), both endpoints of spec 4.4.
import { offsetItems, validate } from './paginate.js';
import { looseArraySchema, looseObjectSchema, type JsonObject } from './schemas.js';
import type { OffsetQuery } from './gamma-client.js';
import type { Transport } from './transport.js';

export class ContentClient {
  constructor(readonly transport: Transport) {}

  async listArticles(q: OffsetQuery = {}): Promise<unknown[]> {
    return validate(looseArraySchema, await this.transport.request({ method: 'GET', path: '/articles', query: { ...q } }), 'GET', '/articles');
  }
  iterateArticles(pageSize = 100): AsyncGenerator<unknown> {
    return offsetItems((offset, limit) => this.listArticles({ offset, limit }), pageSize);
  }
  async getArticle(id: string): Promise<JsonObject> {
    const path = `/articles/${encodeURIComponent(id)}`;
    return validate(looseObjectSchema, await this.transport.request({ method: 'GET', path }), 'GET', path);
  }
}
