/**
 * Walking a list page by page: `for await (const transfer of corridor.list("/v1/transfers"))`.
 *
 * Two page shapes (API.md section 3): `{data, nextCursor, hasMore}` for every list but
 * webhook messages, whose pages are `{data, iterator, done}` (Svix's shape).
 */

import { CorridorError } from "./errors.js";

/** One page of a list, in either of the server's shapes. */
export interface Page<Item> {
  data: Item[];
  nextCursor?: string | null;
  hasMore?: boolean;
  iterator?: string | null;
  done?: boolean;
}

/** The query parameter that carries a page's cursor to the next request, and its value
 * (undefined on the last page). */
export function following(page: Page<unknown>): { parameter: string; cursor: string | undefined } {
  if ("done" in page || "iterator" in page) {
    return { parameter: "iterator", cursor: page.done || !page.iterator ? undefined : page.iterator };
  }
  return { parameter: "cursor", cursor: page.nextCursor ?? undefined };
}

/** Every item of a list, newest first, fetched a page at a time as the loop asks. A
 * Pager is reusable: each loop starts again from the first page. */
export class Pager<Item> implements AsyncIterable<Item> {
  constructor(
    private readonly path: string,
    private readonly fetchPage: (cursor: { parameter: string; value: string } | undefined) => Promise<Page<Item>>,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    for await (const page of this.pages()) {
      yield* page.data;
    }
  }

  /** Only the first page (its `nextCursor` or `iterator` leads to the next). */
  firstPage(): Promise<Page<Item>> {
    return this.fetchPage(undefined);
  }

  /** Page after page until the last. */
  async *pages(): AsyncGenerator<Page<Item>, void, undefined> {
    const cursorsSeen = new Set<string>();
    let cursor: { parameter: string; value: string } | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const next = following(page);
      if (next.cursor === undefined) return;
      if (cursorsSeen.has(next.cursor)) {
        throw new CorridorError(`${this.path}: the server sent cursor ${next.cursor} twice`, {
          code: "cursor_loop",
        });
      }
      cursorsSeen.add(next.cursor);
      cursor = { parameter: next.parameter, value: next.cursor };
    }
  }

  /** Every item in one array (at most `limit` of them when given). */
  async toArray(limit = Infinity): Promise<Item[]> {
    const items: Item[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
